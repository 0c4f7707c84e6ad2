import { MongoServerError } from 'mongodb';

/** The server error a promise rejects with (fails the test when it resolves). */
export async function serverError(action: Promise<unknown>): Promise<MongoServerError> {
  const outcome = await action.then(
    (value: unknown) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected a server error, got ${JSON.stringify(outcome.value)}`);
  expect(outcome.error).toBeInstanceOf(MongoServerError);
  return outcome.error as MongoServerError;
}
