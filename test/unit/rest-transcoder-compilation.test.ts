import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSchema } from '../../src/graphql/schema';
import { loadPersistedOperations, persistedOperationsDirectory } from '../../src/rest/persisted-operations';
import { TRANSCODED_READS, type TranscodedRead } from '../../src/rest/transcoder/raw-reads';

/**
 * Which persisted /v1 reads are written from stored bytes: each is compiled from its selection
 * and the resolvers' descriptions (src/graphql/resolvers/field-source.ts), and an operation that
 * selects a field whose resolver does more than read, look up or join is refused (it then runs
 * on the executor; test/property/rest-transcoder.test.ts holds both roads to the same bytes).
 */
const schema = createSchema();

function withEditedOperations(edit: (directory: string) => void): ReturnType<typeof loadPersistedOperations> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'transcoded-'));
  try {
    fs.cpSync(persistedOperationsDirectory(), directory, { recursive: true });
    edit(directory);
    return loadPersistedOperations(schema, directory);
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

function replaceIn(directory: string, file: string, from: string, to: string): void {
  const where = path.join(directory, file);
  const text = fs.readFileSync(where, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} has no ${from}`);
  fs.writeFileSync(where, text.replace(from, to));
}

describe('transcoded REST reads', () => {
  test('when the persisted operations load, then every /v1 read is compiled: FindCandidates, GetCandidate, GetCandidatesByList', () => {
    const operations = loadPersistedOperations(schema);

    const compiled = (Object.keys(TRANSCODED_READS) as TranscodedRead[]).filter(
      (name) => 'transcoder' in operations.transcoder(name, TRANSCODED_READS[name]),
    );

    expect(compiled).toEqual(['FindCandidates', 'GetCandidate', 'GetCandidatesByList']);
  });

  test('when a read selects a field whose resolver computes its value (Candidate.id, a global id), then the compiler refuses it, naming the field', () => {
    const operations = withEditedOperations((directory) =>
      replaceIn(directory, 'get-candidate.graphql', '...RestCandidate', '...RestCandidate\n    id'),
    );

    expect(operations.transcoder('GetCandidate', ['candidate'])).toEqual({
      refused: expect.stringContaining('Candidate.id') as string,
    });
  });

  test('when a read selects a join whose resolver also records the audit trail (Candidate.partner), then the compiler refuses it', () => {
    const operations = withEditedOperations((directory) =>
      replaceIn(
        directory,
        'find-candidates.graphql',
        '...RestCandidatePage',
        '...RestCandidatePage\n    content { partner { publicId } }',
      ),
    );

    expect(operations.transcoder('FindCandidates', ['candidates'])).toEqual({
      refused: expect.stringContaining('Candidate.partner') as string,
    });
    expect('transcoder' in operations.transcoder('GetCandidate', ['candidate'])).toBe(true);
  });

  test('when a read selects under @include, then the compiler refuses it (the selection depends on the variables)', () => {
    const operations = withEditedOperations((directory) =>
      replaceIn(directory, 'get-candidate.graphql', '...RestCandidate', '...RestCandidate @include(if: true)'),
    );

    expect(operations.transcoder('GetCandidate', ['candidate'])).toEqual({
      refused: expect.stringContaining('@include') as string,
    });
  });

  test('when the transcoder of a search is compiled, then the stored fields it reads are those the selection names, whatever else is stored', () => {
    const compilation = loadPersistedOperations(schema).transcoder('FindCandidates', ['candidates']);
    if (!('transcoder' in compilation)) throw new Error(compilation.refused);

    const fields = compilation.transcoder.candidateFields;

    expect(fields).toEqual(
      expect.arrayContaining(['publicId', 'countryIsoCode', 'candidateVisaChecks', 'maxEducationLevel']),
    );
    expect(fields).not.toContain('partner');
    expect(fields).not.toContain('listed');
  });
});
