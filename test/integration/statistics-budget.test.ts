/**
 * The privacy budget of candidateStatistics over two instances of the service sharing one store
 * (as behind a load balancer): each new query spends its ε from the key's budget for the
 * period, a query that would overspend is refused with PRIVACY_BUDGET_EXHAUSTED naming when the
 * budget renews, a repeat is answered from the stored answer at no cost, and the budget renews
 * on the injected clock. Previews (candidateStatisticsPreview) and statisticsBudget are free and
 * read no candidate. Both instances run on one clock the tests move by hand.
 */
import type { CommandStartedEvent } from 'mongodb';
import { CANDIDATE_COLLECTIONS } from '../../src/candidates/candidate-indexes';
import { PRIVACY_LEDGER_COLLECTIONS } from '../../src/statistics/privacy-ledger-repository';
import { createApiKeyRepository } from '../../src/auth/api-key-repository';
import { ApiKeyService } from '../../src/auth/api-key-service';
import { loadConfig } from '../../src/config';
import { seedDemoData } from '../../src/app/seed-demo-data';
import { createLogger } from '../../src/logger';
import { createApp, type CandidateDirectory } from '../../src/app/main';
import { graphql, type GraphQLResponse } from '../support/app-under-test';
import { testDatabaseName } from '../support/builders';
import { TestClock } from '../support/test-clock';
import { startStoreUnderTest, type StoreUnderTest } from 'embedded-mongodb/test-support';

/** Default budget of these instances: three queries at the default ε of 1. */
const BUDGET = 3;
/** Budget periods of 24 hours: 2030-05-06 12:00 is in the period that renews at 2030-05-07 00:00 UTC. */
const clock = new TestClock('2030-05-06T12:00:00.000Z');
const RENEWS_AT = '2030-05-07T00:00:00.000Z';

interface Instance {
  app: CandidateDirectory;
  url: string;
}

interface Answer {
  total: number;
  epsilon: number;
  epsilonCharged: number;
  budget: number;
  budgetRemaining: number;
  budgetRenewsAt: string;
  cells: { count: number; values: { code: string }[] }[];
}

const QUERY = `query Stats($filter: CandidateFilter, $groupBy: [CandidateDimension!]!, $epsilon: Float) {
  candidateStatistics(filter: $filter, groupBy: $groupBy, epsilon: $epsilon) {
    total epsilon epsilonCharged budget budgetRemaining budgetRenewsAt
    cells { count values { code } }
  }
}`;

let store: StoreUnderTest;
let a: Instance;
let b: Instance;

beforeAll(async () => {
  store = await startStoreUnderTest();
  const config = loadConfig(
    {},
    {
      port: 0,
      mongodbUri: store.uri,
      mongodbDb: testDatabaseName('statistics_budget'),
      logLevel: 'silent',
      statisticsBudget: BUDGET,
      statisticsEpsilon: 1,
      statisticsBudgetPeriodHours: 24,
    },
  );
  const start = async (): Promise<Instance> => {
    const app = await createApp(config, createLogger(config), clock);
    return { app, url: await app.start() };
  };
  a = await start();
  b = await start();
  await seedDemoData(a.app.database.db, { candidates: 60, seed: 5 });
});

afterAll(async () => {
  await a?.app.stop();
  await b?.app.stop();
  await store?.stop();
});

beforeEach(() => {
  clock.set('2030-05-06T12:00:00.000Z');
});

async function analystKey(statisticsBudget?: number): Promise<string> {
  const service = new ApiKeyService(createApiKeyRepository(a.app.database.db), clock);
  const { key } = await service.createKey({ name: 'analyst', permissions: ['READ_STATISTICS'], statisticsBudget });
  return key;
}

interface Preview {
  epsilon: number;
  epsilonCharged: number;
  sensitivity: number;
  minimumCellSize: number;
  totalHalfWidth: number;
  cellHalfWidth: number;
  combinations: number;
  budget: number;
  budgetRemaining: number;
  budgetRenewsAt: string;
  refused: boolean;
}

const PREVIEW = `query Preview($filter: CandidateFilter, $groupBy: [CandidateDimension!]!, $epsilon: Float) {
  candidateStatisticsPreview(filter: $filter, groupBy: $groupBy, epsilon: $epsilon) {
    epsilon epsilonCharged sensitivity minimumCellSize totalHalfWidth cellHalfWidth combinations
    budget budgetRemaining budgetRenewsAt refused
  }
}`;

interface Budget {
  budget: number;
  spent: number;
  remaining: number;
  renewsAt: string;
  queries: { question: Record<string, unknown>; time: string }[];
}

const BUDGET_QUERY = `{ statisticsBudget { budget spent remaining renewsAt queries { time question {
  locations nationalities occupations includeEmployed groupBy epsilon } } } }`;

async function preview(
  instance: Instance,
  key: string,
  variables: { groupBy: string[]; filter?: Record<string, string[]>; epsilon?: number },
): Promise<Preview> {
  const { body } = await graphql<{ candidateStatisticsPreview: Preview }>(instance.url, PREVIEW, variables, key);
  expect(body.errors).toBeUndefined();
  return body.data!.candidateStatisticsPreview;
}

async function budgetOf(instance: Instance, key: string): Promise<Budget> {
  const { body } = await graphql<{ statisticsBudget: Budget }>(instance.url, BUDGET_QUERY, {}, key);
  expect(body.errors).toBeUndefined();
  return body.data!.statisticsBudget;
}

/** The collections the requests of `run` touch on instance a, one entry per command. */
async function collectionsTouched(run: () => Promise<unknown>): Promise<string[]> {
  const touched: string[] = [];
  const listener = (event: CommandStartedEvent) => touched.push(String(event.command[event.commandName]));
  a.app.database.client.on('commandStarted', listener);
  try {
    await run();
    return touched;
  } finally {
    a.app.database.client.off('commandStarted', listener);
  }
}

function ask(
  instance: Instance,
  key: string,
  variables: { groupBy: string[]; filter?: Record<string, string[]>; epsilon?: number },
): Promise<GraphQLResponse<{ candidateStatistics: Answer }>> {
  return graphql<{ candidateStatistics: Answer }>(instance.url, QUERY, variables, key);
}

async function answered(
  instance: Instance,
  key: string,
  variables: { groupBy: string[]; filter?: Record<string, string[]>; epsilon?: number },
): Promise<Answer> {
  const { body } = await ask(instance, key, variables);
  expect(body.errors).toBeUndefined();
  return body.data!.candidateStatistics;
}

describe('statistics privacy budget', () => {
  test('when a key spends its whole budget, then the next new query is refused with PRIVACY_BUDGET_EXHAUSTED naming when it renews, and nothing is charged', async () => {
    // Arrange
    const key = await analystKey();

    // Act
    const spent = [
      await answered(a, key, { groupBy: ['GENDER'] }),
      await answered(a, key, { groupBy: ['LOCATION'] }),
      await answered(b, key, { groupBy: ['STATUS'] }),
    ];
    const refused = await ask(a, key, { groupBy: ['AGE_BAND'] });
    const cheaper = await ask(b, key, { groupBy: ['AGE_BAND'], epsilon: 0.5 });

    // Assert
    expect(spent.map((answer) => [answer.epsilonCharged, answer.budgetRemaining])).toEqual([
      [1, 2],
      [1, 1],
      [1, 0],
    ]);
    expect(spent[0]).toMatchObject({ epsilon: 1, budget: BUDGET, budgetRenewsAt: RENEWS_AT });
    for (const { status, body } of [refused, cheaper]) {
      expect(status).not.toBe(500);
      expect(body.data?.candidateStatistics ?? null).toBeNull();
      expect(body.errors?.[0]?.extensions?.code).toBe('PRIVACY_BUDGET_EXHAUSTED');
      expect(body.errors?.[0]?.message).toContain(`renews at ${RENEWS_AT}`);
      expect(body.errors?.[0]?.message).toContain('has ε = 0 left');
    }
  });

  test('when the same query is asked again in the period, on either instance, then the stored answer comes back at no cost', async () => {
    // Arrange
    const key = await analystKey();
    const query = { groupBy: ['NATIONALITY', 'GENDER'], filter: { location: ['LB'] } };
    const first = await answered(a, key, query);

    // Act
    const again = await answered(b, key, query);
    const other = await answered(a, key, { ...query, filter: { location: ['lb'] } });

    // Assert
    expect(first.epsilonCharged).toBe(1);
    expect(again.cells).toEqual(first.cells);
    expect(again.total).toBe(first.total);
    expect(again).toMatchObject({ epsilonCharged: 0, budgetRemaining: 2 });
    // The canonical form: codes as the service understands them, so a respelling is a repeat too.
    expect(other).toMatchObject({ epsilonCharged: 0, budgetRemaining: 2, total: first.total });
  });

  test('when the period ends on the clock, then the budget is whole again and a repeat is a new query with new noise', async () => {
    // Arrange
    const key = await analystKey();
    for (const groupBy of [['GENDER'], ['LOCATION'], ['STATUS']]) await answered(a, key, { groupBy });
    expect((await ask(a, key, { groupBy: ['AGE_BAND'] })).body.errors?.[0]?.extensions?.code).toBe(
      'PRIVACY_BUDGET_EXHAUSTED',
    );

    // Act
    clock.set(RENEWS_AT);
    const renewed = await answered(b, key, { groupBy: ['AGE_BAND'] });
    const repeated = await answered(a, key, { groupBy: ['GENDER'] });

    // Assert
    expect(renewed).toMatchObject({
      epsilonCharged: 1,
      budgetRemaining: 2,
      budgetRenewsAt: '2030-05-08T00:00:00.000Z',
    });
    expect(repeated).toMatchObject({ epsilonCharged: 1, budgetRemaining: 1 });
  });

  test('when two instances receive many new queries of one key at once, then together they never spend more than its budget', async () => {
    // Arrange
    const key = await analystKey(5);
    const groupings = ['LOCATION', 'NATIONALITY', 'OCCUPATION', 'STATUS', 'GENDER', 'EDUCATION_LEVEL', 'LANGUAGE'];

    // Act
    const answers = await Promise.all(
      groupings.flatMap((dimension) => [
        ask(a, key, { groupBy: [dimension], epsilon: 0.5 }),
        ask(b, key, { groupBy: [dimension, 'AGE_BAND'], epsilon: 0.5 }),
      ]),
    );

    // Assert
    const accepted = answers.filter(({ body }) => body.errors === undefined);
    const refused = answers.filter(({ body }) => body.errors?.[0]?.extensions?.code === 'PRIVACY_BUDGET_EXHAUSTED');
    expect(accepted).toHaveLength(10);
    expect(refused).toHaveLength(answers.length - 10);
    const charged = accepted.reduce((sum, { body }) => sum + body.data!.candidateStatistics.epsilonCharged, 0);
    expect(charged).toBe(5);
  });

  test('when 8 identical new queries of one key arrive at one instance at once, then they share one charge and one answer', async () => {
    // Arrange
    const key = await analystKey(5);
    const query = { groupBy: ['GENDER', 'STATUS'] };

    // Act
    const answers = await Promise.all(Array.from({ length: 8 }, () => ask(a, key, query)));
    const next = await answered(a, key, { groupBy: ['LOCATION'] });

    // Assert
    expect(answers.map(({ body }) => body.errors?.[0]?.extensions?.code ?? 'answered')).toEqual(
      Array(8).fill('answered'),
    );
    const published = answers.map(({ body }) => body.data!.candidateStatistics);
    expect(published.map((answer) => answer.epsilonCharged).sort()).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    for (const answer of published)
      expect({ total: answer.total, cells: answer.cells }).toEqual({
        total: published[0].total,
        cells: published[0].cells,
      });
    expect(next).toMatchObject({ epsilonCharged: 1, budgetRemaining: 3 });
  });

  test("when a key carries its own statistics budget, then it is that key's budget instead of the default", async () => {
    // Arrange
    const key = await analystKey(1.5);

    // Act
    const first = await answered(a, key, { groupBy: ['GENDER'], epsilon: 0.75 });
    const second = await answered(b, key, { groupBy: ['STATUS'], epsilon: 0.75 });
    const third = await ask(a, key, { groupBy: ['LOCATION'], epsilon: 0.001 });

    // Assert
    expect(first).toMatchObject({ budget: 1.5, budgetRemaining: 0.75 });
    expect(second).toMatchObject({ budget: 1.5, budgetRemaining: 0 });
    expect(third.body.errors?.[0]?.extensions?.code).toBe('PRIVACY_BUDGET_EXHAUSTED');
  });

  test('when a key whose budget is exactly one query previews it 100 times and reads its budget, then nothing is spent and the query still runs', async () => {
    // Arrange
    const key = await analystKey(1);
    const question = { groupBy: ['LOCATION', 'LANGUAGE'], filter: { nationality: ['SY'] } };

    // Act: on both instances, ten at a time
    const previews: Preview[] = [];
    const budgets: Budget[] = [];
    for (let round = 0; round < 10; round++) {
      const instance = round % 2 === 0 ? a : b;
      previews.push(...(await Promise.all(Array.from({ length: 10 }, () => preview(instance, key, question)))));
      budgets.push(await budgetOf(instance, key));
    }
    const answer = await answered(a, key, question);
    const after = await preview(b, key, question);
    const other = await preview(b, key, { groupBy: ['GENDER'] });

    // Assert
    expect(previews).toHaveLength(100);
    for (const seen of previews)
      expect(seen).toMatchObject({ epsilonCharged: 1, budget: 1, budgetRemaining: 1, refused: false });
    for (const seen of budgets)
      expect(seen).toEqual({ budget: 1, spent: 0, remaining: 1, renewsAt: RENEWS_AT, queries: [] });
    expect(answer).toMatchObject({ epsilonCharged: 1, budgetRemaining: 0 });
    // Answered now: asking again would be the stored answer, free; a new question would be refused.
    expect(after).toMatchObject({ epsilonCharged: 0, budgetRemaining: 0, refused: false });
    expect(other).toMatchObject({ epsilonCharged: 1, budgetRemaining: 0, refused: true });
    expect((await ask(a, key, { groupBy: ['GENDER'] })).body.errors?.[0]?.extensions?.code).toBe(
      'PRIVACY_BUDGET_EXHAUSTED',
    );
  });

  test('when queries are charged, then statisticsBudget lists each with its question and time, never a count, and empties when the period renews', async () => {
    // Arrange
    const key = await analystKey();
    await answered(a, key, { groupBy: ['GENDER'], filter: { location: ['lb', 'JO '] } });
    clock.set('2030-05-06T13:30:00.000Z');
    await answered(b, key, { groupBy: ['OCCUPATION', 'LANGUAGE'], epsilon: 0.5 });
    // Neither a repeat nor a refusal is charged, so neither is listed.
    await answered(a, key, { groupBy: ['GENDER'], filter: { location: ['JO', 'LB'] } });
    await ask(a, key, { groupBy: ['STATUS'], epsilon: 2 });

    // Act
    const budget = await budgetOf(b, key);
    clock.set(RENEWS_AT);
    const renewed = await budgetOf(a, key);

    // Assert
    expect(budget).toEqual({
      budget: BUDGET,
      spent: 1.5,
      remaining: 1.5,
      renewsAt: RENEWS_AT,
      queries: [
        {
          time: '2030-05-06T12:00:00.000Z',
          question: {
            locations: ['JO', 'LB'],
            nationalities: [],
            occupations: [],
            includeEmployed: false,
            groupBy: ['GENDER'],
            epsilon: 1,
          },
        },
        {
          time: '2030-05-06T13:30:00.000Z',
          question: {
            locations: [],
            nationalities: [],
            occupations: [],
            includeEmployed: false,
            groupBy: ['OCCUPATION', 'LANGUAGE'],
            epsilon: 0.5,
          },
        },
      ],
    });
    expect(renewed).toEqual({
      budget: BUDGET,
      spent: 0,
      remaining: BUDGET,
      renewsAt: '2030-05-08T00:00:00.000Z',
      queries: [],
    });
  });

  test('when a question is previewed, then no command reads the candidates (the answer to it does)', async () => {
    // Arrange
    const key = await analystKey();
    const question = { groupBy: ['NATIONALITY', 'OCCUPATION'], filter: { location: ['LB'] } };

    // Act
    const previewed = await collectionsTouched(() => preview(a, key, question));
    const budgetRead = await collectionsTouched(() => budgetOf(a, key));
    const ran = await collectionsTouched(() => answered(a, key, question));

    // Assert
    expect(previewed).toContain(PRIVACY_LEDGER_COLLECTIONS.budgets);
    expect(previewed).toContain(PRIVACY_LEDGER_COLLECTIONS.answers);
    expect(previewed).not.toContain(CANDIDATE_COLLECTIONS.candidates);
    expect(budgetRead).toContain(PRIVACY_LEDGER_COLLECTIONS.budgets);
    expect(budgetRead).not.toContain(CANDIDATE_COLLECTIONS.candidates);
    expect(ran).toContain(CANDIDATE_COLLECTIONS.candidates);
  });
});
