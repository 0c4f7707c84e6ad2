import type { CommandStartedEvent } from 'mongodb';
import { AUDIT_COLLECTION } from '../../src/audit/audit-indexes';
import { READ_EPOCH_COLLECTION } from '../../src/cache/read-epoch';
import { toStoredCandidate, type CandidateDoc } from 'candidate-documents';
import { RATE_LIMIT_COLLECTION } from '../../src/rate-limit/rate-limit-indexes';
import { loadReferenceData } from '../../src/reference/load-reference-data';
import { COLLECTIONS } from '../../src/app/indexes';
import { startAppUnderTest, graphql, type AppUnderTest } from '../support/app-under-test';
import { isBackgroundCommand } from '../support/background-commands';
import { aCandidate, aJobOpportunity, at } from '../support/builders';
import { fullSelection } from '../support/full-selection';

/**
 * 120 candidates in partner pairs, each with every nested list filled. References are
 * drawn from small sets that the first ten candidates already cover, so a page of 10 and a
 * page of 100 need the same loaders at the same nesting levels: only the number of keys per
 * batch differs, which is what batching must make irrelevant. Job opportunities are the
 * exception: each candidate has two of its own, so a page of 100 looks up 200, more than the
 * 101 documents of a default first batch (which would cost a getMore).
 */
function candidatesWithEveryNestedField(jobOppIds: string[]): CandidateDoc[] {
  const countries = ['JO', 'LB', 'TR'];
  const occupations = ['2221', '2512', '7212'];
  const docs = Array.from({ length: 120 }, (_, i) =>
    aCandidate({
      createdDate: at(i),
      countryIsoCode: countries[i % 3],
      birthCountryIsoCode: 'SY',
      nationalityIsoCode: 'SY',
      drivingLicenseCountryIsoCode: countries[(i + 1) % 3],
      maxEducationLevel: 6,
      partnerEduLevel: 5,
      partnerEnglishLevel: 3,
      partnerOccupationIsco08Code: occupations[(i + 1) % 3],
      candidateOccupations: [
        {
          occupation: { isco08Code: occupations[i % 3] },
          yearsExperience: 4,
          candidateJobExperiences: [
            { countryIsoCode: 'SY', companyName: 'Clinic', role: 'Nurse', startDate: '2015-01-01' },
          ],
        },
      ],
      candidateLanguages: [{ languageIsoCode: i % 2 ? 'ar' : 'en', writtenLevel: 4, spokenLevel: 5 }],
      candidateEducations: [
        { educationType: 'BACHELOR', countryIsoCode: 'SY', educationMajorId: 913, yearCompleted: 2012 },
      ],
      candidateCitizenships: [{ hasPassport: 'VALID_PASSPORT', nationalityIsoCode: 'SY' }],
      candidateDestinations: [{ countryIsoCode: 'CA', interest: 'YES' }],
      candidateVisaChecks: [
        {
          countryIsoCode: 'CA',
          overallRisk: 'LOW',
          candidateVisaJobChecks: [0, 1].map((j) => ({
            jobOppPublicId: jobOppIds[(2 * i + j) % jobOppIds.length],
            occupationIsco08Code: occupations[i % 3],
          })),
        },
      ],
    }),
  );
  // Partners in pairs (0-1, 2-3, …): every page holds partners whose own references repeat the page's.
  docs.forEach((doc, i) => (doc.partnerPublicId = docs[i ^ 1].publicId));
  return docs;
}

describe('per-request DataLoaders', () => {
  let service: AppUnderTest;
  let key: string;

  beforeAll(async () => {
    service = await startAppUnderTest();
    await loadReferenceData(service.db);
    const jobs = Array.from({ length: 240 }, () => aJobOpportunity({ countryIsoCode: 'CA' }));
    await service.db.collection(COLLECTIONS.jobOpportunities).insertMany(jobs.map((j) => ({ ...j })));
    await service.db
      .collection(COLLECTIONS.candidates)
      .insertMany(candidatesWithEveryNestedField(jobs.map((j) => j.publicId)).map(toStoredCandidate));
    key = await service.key('READ_CANDIDATE_DATA');
  });

  afterAll(async () => {
    await service.stop();
  });

  /** The commands the service sends to MongoDB while answering one request. */
  async function commandsFor(limit: number): Promise<{ names: string[]; content: Record<string, any>[] }> {
    const names: string[] = [];
    // The read epoch, the key, the rate-limit counter and the audit event are read or written
    // for every request whatever it selects (the key only until it is cached, the audit event
    // after the answer); what is counted here is the loaders' work.
    const bookkeeping = new Set([READ_EPOCH_COLLECTION, COLLECTIONS.apiKeys, RATE_LIMIT_COLLECTION, AUDIT_COLLECTION]);
    const listener = (event: CommandStartedEvent) => {
      if (isBackgroundCommand(event)) return;
      const collection = String(event.command[event.commandName]);
      if (!bookkeeping.has(collection)) names.push(`${event.commandName}:${collection}`);
    };
    service.app.database.client.on('commandStarted', listener);
    try {
      const { body } = await graphql<{ candidates: { content: Record<string, any>[] } }>(
        service.url,
        `query($limit: Int) { candidates(limit: $limit) { totalElements content { ${fullSelection('Candidate')} } } }`,
        { limit },
        key,
      );
      expect(body.errors).toBeUndefined();
      return { names, content: body.data!.candidates.content };
    } finally {
      service.app.database.client.off('commandStarted', listener);
    }
  }

  test('when a page of 10 and a page of 100 select every nested field, then both send the same small number of commands', async () => {
    const ten = await commandsFor(10);
    const hundred = await commandsFor(100);

    expect(ten.content).toHaveLength(10);
    expect(hundred.content).toHaveLength(100);
    expect(hundred.content[99].partner.candidateVisaChecks[0].candidateVisaJobChecks[0].jobOpp.country.name).toBe(
      'Canada',
    );
    expect([...hundred.names].sort()).toEqual([...ten.names].sort());
    // the page, its count, then one batch per loader that reads the database: job opportunities
    // and partner candidates (reference data comes from the snapshot read at start)
    expect(ten.names).toHaveLength(4);
  });
});
