import { makeExecutableSchema } from '@graphql-tools/schema';
import { unwrapResolverError } from '@apollo/server/errors';
import { execute, GraphQLError, Kind, parse, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { compileQuery } from 'graphql-jit';
import { NotFoundError } from '../../src/errors';
import { LruCache } from '../../src/cache/lru-cache';
import { createOperationExecutor, type OperationExecutor } from '../../src/graphql/execution/operation-executor';

jest.mock('graphql-jit', () => {
  const actual = jest.requireActual('graphql-jit');
  return { ...actual, compileQuery: jest.fn(actual.compileQuery) };
});
const compiled = compileQuery as unknown as jest.Mock;

const notFound = new NotFoundError('No such thing.');

function aSchema(): GraphQLSchema {
  return makeExecutableSchema({
    typeDefs: /* GraphQL */ `
      type Query {
        thing(id: Int!): Thing
        things(limit: Int = 2): [Thing!]!
        missing: Thing
        broken: Thing!
      }
      type Thing {
        id: Int!
        name: String
        mustHave: String!
      }
    `,
    resolvers: {
      Query: {
        thing: (_: unknown, { id }: { id: number }) => ({ id, name: `thing ${id}`, mustHave: 'yes' }),
        things: (_: unknown, { limit }: { limit: number }) =>
          Array.from({ length: limit }, (_x, id) => ({ id, mustHave: 'yes' })),
        missing: () => {
          throw notFound;
        },
        broken: () => ({ id: 1 }),
      },
    },
  });
}

describe('the operation executor', () => {
  let schema: GraphQLSchema;
  let executor: OperationExecutor;

  beforeEach(() => {
    compiled.mockClear();
    schema = aSchema();
    executor = createOperationExecutor(schema, { compiled: true });
  });

  const run = (source: string, variableValues: Record<string, unknown> = {}, on: OperationExecutor = executor) =>
    on.execute({ document: parse(source), source, variableValues, contextValue: {} });
  const interpreted = (source: string, variableValues: Record<string, unknown> = {}) =>
    execute({ schema, document: parse(source), variableValues, contextValue: {} }) as Promise<ExecutionResult>;

  test('when an operation runs a second time, then it is compiled once, and every run answers like graphql-js', async () => {
    const source = 'query Two($id: Int!) { thing(id: $id) { id name } things { id } }';

    const results = [await run(source, { id: 1 }), await run(source, { id: 2 }), await run(source, { id: 3 })];

    expect(compiled).toHaveBeenCalledTimes(1);
    expect(results).toEqual([
      await interpreted(source, { id: 1 }),
      await interpreted(source, { id: 2 }),
      await interpreted(source, { id: 3 }),
    ]);
  });

  test('when compiled execution is off, then nothing is compiled', async () => {
    const plain = createOperationExecutor(schema, { compiled: false });

    await run('{ things { id } }', {}, plain);
    await run('{ things { id } }', {}, plain);
    plain.prepare(parse('{ things { id } }'));

    expect(compiled).not.toHaveBeenCalled();
  });

  test('when an operation is prepared, then it is compiled at once', async () => {
    const prepared = executor.prepare(parse('query Named { things(limit: 3) { id } }'), 'Named');

    expect(compiled).toHaveBeenCalledTimes(1);
    expect(await prepared({}, {})).toEqual({ data: { things: [{ id: 0 }, { id: 1 }, { id: 2 }] } });
  });

  test('when a resolver throws, then the compiled error is a graphql-js error around the original, as graphql-js makes it', async () => {
    const source = '{ things { id } missing { id } }';
    const expected = await interpreted(source);

    await run(source);
    const result = await run(source);

    const error = result.errors![0];
    expect(compiled).toHaveBeenCalledTimes(1);
    expect(Object.getPrototypeOf(error)).toBe(GraphQLError.prototype);
    expect(error.originalError).toBe(notFound);
    expect(unwrapResolverError(error)).toBe(notFound);
    expect(error.toJSON()).toEqual(expected.errors![0].toJSON());
    expect(result.data).toEqual(expected.data);
  });

  test('when a non-null field is null, then the null bubbles up and the original error is a plain Error, as with graphql-js', async () => {
    const source = '{ things { id } broken { id mustHave } }';
    const expected = await interpreted(source);

    await run(source);
    const result = await run(source);

    expect(result.data).toEqual(expected.data);
    expect(result.data).toBeNull();
    expect(result.errors!.map((e) => e.toJSON())).toEqual(expected.errors!.map((e) => e.toJSON()));
    expect(result.errors![0].originalError).toBeInstanceOf(Error);
    expect(result.errors![0].originalError).not.toBeInstanceOf(GraphQLError);
  });

  test("when variables cannot be coerced, then the errors are graphql-js's own, with the variable definition as node", async () => {
    const source = 'query One($id: Int!) { thing(id: $id) { id } }';
    const expected = await interpreted(source, { id: 'one' });

    await run(source, { id: 1 });
    const result = await run(source, { id: 'one' });

    expect(compiled).toHaveBeenCalledTimes(1);
    expect(result).toEqual(expected);
    expect('data' in result).toBe(false);
    expect(result.errors![0].nodes![0].kind).toBe(Kind.VARIABLE_DEFINITION);
  });

  test('when an operation selects introspection fields, then graphql-js runs it, however often', async () => {
    const source = '{ __schema { queryType { name } } things { id } }';

    await run(source);
    const result = await run(source);

    expect(compiled).not.toHaveBeenCalled();
    expect(result).toEqual(await interpreted(source));
  });

  test('when more operations run than the cache holds, then the least recently used one is compiled again', async () => {
    const small = createOperationExecutor(schema, { compiled: true, cacheSize: 2, compileAfter: 1 });
    const [a, b, c] = ['{ things { id } }', '{ things { name } }', '{ things { mustHave } }'];

    await run(a, {}, small);
    await run(b, {}, small);
    await run(a, {}, small); // a is now the most recent
    await run(c, {}, small); // b goes
    await run(a, {}, small);
    await run(b, {}, small);

    expect(
      compiled.mock.calls.map((call) => (call[1] as { loc?: { source: { body: string } } }).loc?.source.body),
    ).toEqual([a, b, c, b]);
  });
});

describe('LruCache', () => {
  test('when full, then it forgets the least recently read entry', () => {
    const cache = new LruCache<string, number>(2);

    cache.set('a', 1);
    cache.set('b', 2);
    cache.get('a');
    cache.set('c', 3);

    expect([cache.get('a'), cache.get('b'), cache.get('c'), cache.size]).toEqual([1, undefined, 3, 2]);
  });
});
