import { publishedCount } from '../support/previous-disclosure-control';

describe('disclosure control', () => {
  test.each([
    [9, null],
    [10, 10],
    [12, 10],
    [13, 15],
    [17, 15],
    [18, 20],
    [102, 100],
    [103, 105],
  ])('when the minimum is 10 and the base 5, then a true count of %i is published as %p', (count, published) => {
    expect(publishedCount(count, { minimumCellSize: 10, rounding: 5 })).toBe(published);
  });

  test.each([
    [11, null],
    [12, 15],
    [13, 15],
    [17, 15],
    [18, 20],
  ])(
    'when the minimum (12) is no multiple of the base (5), then %i is published as %p: never below the minimum, still a multiple of the base',
    (count, published) => {
      expect(publishedCount(count, { minimumCellSize: 12, rounding: 5 })).toBe(published);
    },
  );

  test('when the base is 1, then counts at or above the minimum are published as they are', () => {
    expect([2, 3, 47].map((count) => publishedCount(count, { minimumCellSize: 3, rounding: 1 }))).toEqual([
      null,
      3,
      47,
    ]);
  });
});
