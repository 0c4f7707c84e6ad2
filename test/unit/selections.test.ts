/**
 * The one walker of selection sets through fragments (src/graphql/selections.ts), which the root
 * fields, the candidate fields of a search, the weight of an operation and the fragments of a
 * persisted operation all read through.
 */
import { Kind, parse, type OperationDefinitionNode } from 'graphql';
import { fragmentsOf, selectedFields, spreadFragmentNames } from '../../src/graphql/selections';

function operationOf(source: string) {
  const document = parse(source);
  const operation = document.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  if (operation === undefined) throw new Error('no operation');
  return { document, operation, fragments: fragmentsOf(document) };
}

const names = (fields: ReturnType<typeof selectedFields>) =>
  fields.map(
    ({ field, typeCondition }) =>
      `${field.alias?.value ?? field.name.value}${typeCondition ? `@${typeCondition}` : ''}`,
  );

describe('selection walker', () => {
  test('when fields are selected directly, in inline fragments and in nested spreads, then each is found in document order with its innermost type condition', () => {
    const { operation, fragments } = operationOf(`
      query { a ...F ... on Query { b ... { c } } d: a }
      fragment F on Query { e ...G }
      fragment G on Node { f { notThis } }
    `);

    const found = selectedFields([operation.selectionSet], fragments);

    expect(names(found)).toEqual(['a', 'e@Query', 'f@Node', 'b@Query', 'c@Query', 'd']);
  });

  test('when a fragment is spread twice, then by default it is walked once, and with spreads "each" at every spread', () => {
    const { operation, fragments } = operationOf('query { ...F ...F x { y } } fragment F on Query { a }');

    expect(names(selectedFields([operation.selectionSet], fragments))).toEqual(['a@Query', 'x']);
    expect(names(selectedFields([operation.selectionSet], fragments, { spreads: 'each' }))).toEqual([
      'a@Query',
      'a@Query',
      'x',
    ]);
  });

  test('when fragments spread each other in a cycle (a document validation refuses), then the walk still ends', () => {
    const { operation, fragments } = operationOf(
      'query { ...A } fragment A on Query { a ...B } fragment B on Query { b ...A }',
    );

    expect(names(selectedFields([operation.selectionSet], fragments, { spreads: 'each' }))).toEqual([
      'a@Query',
      'b@Query',
    ]);
    expect(spreadFragmentNames([operation.selectionSet], fragments)).toEqual(['A', 'B']);
  });

  test('when a spread names an unknown fragment, then it is skipped and still reported to onSpread', () => {
    const { operation, fragments } = operationOf('query { a ...Missing }');
    const spread: string[] = [];

    expect(
      names(selectedFields([operation.selectionSet], fragments, { onSpread: (name) => spread.push(name) })),
    ).toEqual(['a']);
    expect(spread).toEqual(['Missing']);
  });

  test('when the fragments come as graphql-js gives them to resolvers (a record), then they are walked the same', () => {
    const { operation, fragments } = operationOf('query { ...F } fragment F on Query { a }');

    expect(names(selectedFields([operation.selectionSet], Object.fromEntries(fragments)))).toEqual(['a@Query']);
  });

  test('when a spread names a property every object has (toString), then it is an unknown fragment, not one of the prototype', () => {
    const { operation } = operationOf('query { a ...toString }');

    expect(names(selectedFields([operation.selectionSet], {}))).toEqual(['a']);
  });

  test('when fragments are spread below fields at any depth, then spreadFragmentNames lists each once, transitively, level by level in the order first met', () => {
    const { operation, fragments } = operationOf(`
      query { x { ...A y { ...B } } ...A }
      fragment A on X { a { ...C } }
      fragment B on Y { ...C }
      fragment C on Z { c }
    `);

    expect(spreadFragmentNames([operation.selectionSet], fragments)).toEqual(['A', 'C', 'B']);
  });
});
