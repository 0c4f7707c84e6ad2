import { Double, Long, serialize, type Document } from 'bson';
import { decodeOpMsg } from '../src/index';

/**
 * The OP_MSG decoder's second, typed decoding of a command (numbers of the BSON type they were
 * sent as): made for the values a command carries, not for the driver's own long arguments.
 */

/** An OP_MSG of one body section and optional document sequences. */
function opMsg(body: Document, sequences: Record<string, Document[]> = {}): Buffer {
  const sections: Buffer[] = [Buffer.concat([Buffer.from([0]), serialize(body)])];
  for (const [identifier, docs] of Object.entries(sequences)) {
    const payload = Buffer.concat([Buffer.from(`${identifier}\0`), ...docs.map((doc) => serialize(doc))]);
    const size = Buffer.alloc(4);
    size.writeInt32LE(4 + payload.length);
    sections.push(Buffer.concat([Buffer.from([1]), size, payload]));
  }
  const message = Buffer.concat([Buffer.alloc(16 + 4), ...sections]);
  message.writeInt32LE(message.length, 0);
  message.writeInt32LE(2013, 12);
  return message;
}

describe('OP_MSG decoding of typed numbers', () => {
  test('when only the arguments hold longs (txnNumber, getMore), then no typed decoding is made', () => {
    // Act
    const insert = decodeOpMsg(opMsg({ insert: 'c', documents: [{ a: 1 }], txnNumber: Long.fromNumber(1), $db: 'd' }));
    const getMore = decodeOpMsg(opMsg({ getMore: Long.fromNumber(7), collection: 'c', $db: 'd' }));

    // Assert
    expect(insert.typed).toBeUndefined();
    expect(getMore.typed).toBeUndefined();
  });

  test('when a document holds a whole double or a long, in the body or a sequence, then the typed decoding keeps it', () => {
    // Act
    const inBody = decodeOpMsg(opMsg({ insert: 'c', documents: [{ a: new Double(1) }], $db: 'd' }));
    const inSequence = decodeOpMsg(
      opMsg({ insert: 'c', $db: 'd' }, { documents: [{ a: 1 }, { b: Long.fromNumber(2) }] }),
    );

    // Assert
    expect(inBody.body.documents[0].a).toBe(1);
    expect(inBody.typed?.documents[0].a).toEqual(new Double(1));
    expect(inSequence.typed?.documents).toEqual([{ a: 1 }, { b: Long.fromNumber(2) }]);
  });
});
