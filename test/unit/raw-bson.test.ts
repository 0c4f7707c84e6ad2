import { BSON, Long } from 'mongodb';
import { promotedInt64 } from '../../src/store/raw-bson';

/** The value of `{ v: <int64> }` as the transcoder reads it, and as the driver decodes it. */
function bothReadings(value: string): { transcoder: number | undefined; driver: unknown } {
  const document = Buffer.from(BSON.serialize({ v: Long.fromString(value) }));
  // 4 bytes of length, the type byte, "v" and its 0: the value starts at 7.
  return { transcoder: promotedInt64(document, 7), driver: BSON.deserialize(document).v };
}

describe('promotedInt64', () => {
  test.each(['9007199254740992', '-9007199254740992', '9007199254740991', '4294967296', '-4294967296', '-1', '0'])(
    'when an int64 is %s (within ±2^53), then it is the number the driver promotes it to',
    (value) => {
      const { transcoder, driver } = bothReadings(value);

      expect(typeof driver).toBe('number');
      expect(transcoder).toBe(driver);
    },
  );

  test.each([
    '9007199254740993',
    '-9007199254740993',
    '9007199254740994',
    '9223372036854775807',
    '-9223372036854775808',
  ])(
    'when an int64 is %s (beyond ±2^53, though a double would round it within), then it is not a number, as the driver keeps a Long',
    (value) => {
      const { transcoder, driver } = bothReadings(value);

      expect(driver).toBeInstanceOf(Long);
      expect(transcoder).toBeUndefined();
    },
  );
});
