import { closeWithin } from '../../src/store/mongo';

describe('closing the driver within a bound (closeWithin)', () => {
  test('when the close settles, then it is awaited and reported closed', async () => {
    // Arrange
    let closed = false;
    const close = async (): Promise<void> => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      closed = true;
    };

    // Act
    const outcome = await closeWithin(close, 10_000);

    // Assert
    expect(outcome).toBe(true);
    expect(closed).toBe(true);
  });

  test('when the close fails, then the failure reaches the caller', async () => {
    await expect(closeWithin(() => Promise.reject(new Error('socket gone')), 10_000)).rejects.toThrow('socket gone');
  });

  test('when the close never settles (the driver after its server died), then it is given up after the bound and reported not closed', async () => {
    // Arrange
    jest.useFakeTimers();
    try {
      const never = (): Promise<void> => new Promise<void>(() => undefined);

      // Act
      const outcome = closeWithin(never, 4_000);
      await jest.advanceTimersByTimeAsync(3_999);
      let settled = false;
      void outcome.then(() => (settled = true));
      await Promise.resolve();
      const settledBeforeTheBound = settled;
      await jest.advanceTimersByTimeAsync(1);

      // Assert
      expect(settledBeforeTheBound).toBe(false);
      expect(await outcome).toBe(false);
    } finally {
      jest.useRealTimers();
    }
  });
});
