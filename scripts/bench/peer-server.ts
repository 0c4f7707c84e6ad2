/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument -- the peer reads its documents untyped, as a first hand-written version does */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { MongoClient, type Document } from 'mongodb';

/**
 * The hand-written peer of the benchmark: the service a competent developer would write instead
 * of this one for the two hottest reads of the contract, Express + the `mongodb` driver +
 * `res.json`, on the same store (the service's embedded store, through its socket, while the
 * service runs). It answers GET /v1/candidates (page, limit) and GET /v1/candidates/:publicId
 * with the contract's JSON: the stored fields it shows projected, reference codes resolved from
 * the reference collections read at start, the job opportunities of a page in one query, nulls
 * left out. No key, rate limit or audit: it does less than the service, as such a first version
 * would. The harness checks its answers byte for byte against the service's before measuring it.
 *
 * Usage (forked by the harness, with an IPC channel): peer-server.ts <mongodb uri> <database>
 * Reports `{ port }` over IPC once listening on a free loopback port; exits when the harness disconnects.
 */

const [uri, database] = process.argv.slice(2);
if (!uri || !database) {
  process.stderr.write('usage: peer-server.ts <mongodb uri> <database>\n');
  process.exit(2);
}

type Json = Record<string, unknown>;
type Lookup = (code: unknown) => Json | undefined;

/** Copies the fields of `from` named in `fields` that hold a value, in that order. */
function pick(from: Document | undefined, fields: readonly string[]): Json | undefined {
  if (!from) return undefined;
  const out: Json = {};
  for (const field of fields) if (from[field] != null) out[field] = from[field];
  return out;
}

/** Sets `key` when `value` holds something (the contract leaves absent fields out). */
function put(out: Json, key: string, value: unknown): void {
  if (value != null) out[key] = value;
}

const list = <T>(items: readonly T[] | null | undefined, map: (item: T) => Json): Json[] | undefined =>
  items == null ? undefined : items.filter((item) => item != null).map(map);

async function main(): Promise<void> {
  const client = await MongoClient.connect(uri);
  const db = client.db(database);

  // Reference data, read once: each as the contract shows it.
  const byKey = async (collection: string, key: string, fields: readonly string[]) => {
    const map = new Map<unknown, Json>();
    for (const doc of await db.collection(collection).find({}).toArray()) map.set(doc[key], pick(doc, fields)!);
    return (code: unknown) => (code == null ? undefined : map.get(code));
  };
  const country = await byKey('countries', 'isoCode', ['isoCode', 'name', 'status']);
  const language = await byKey('languages', 'isoCode', ['isoCode', 'name', 'status']);
  const languageLevel = await byKey('languageLevels', 'level', ['level', 'name', 'cefrLevel']);
  const occupation = await byKey('occupations', 'isco08Code', ['isco08Code', 'name', 'status']);
  const educationLevel = await byKey('educationLevels', 'level', ['level', 'status', 'educationType']);
  const pageEducationLevel = await byKey('educationLevels', 'level', ['level', 'status']);
  const major = await byKey('educationMajors', 'id', ['id', 'iscedCode', 'name', 'status']);

  const candidates = db.collection('candidates');
  const jobOpportunities = db.collection('jobOpportunities');

  const PROFILE_START = ['publicId', 'createdDate', 'status', 'gender', 'yearOfBirth', 'city'];
  const PROFILE_MIDDLE = [
    'maritalStatus',
    'candidateMessage',
    'yearOfArrival',
    'homeLocation',
    'hostChallenges',
    'hostEntryLegally',
    'hostEntryYear',
    'residenceStatus',
    'mediaWillingness',
    'howHeardAboutUs',
    'contactConsentPlatformPartners',
    'contactConsentRegistration',
    'refugeeAgencyConsent',
    'monitoringEvaluationConsent',
    'availDate',
    'availImmediate',
    'availImmediateJobOps',
    'availImmediateReason',
    'arrestImprison',
    'asylumYear',
    'canDrive',
    'conflict',
    'crimeConvict',
    'destLimit',
    'drivingLicense',
  ];
  const PROFILE_HEALTH = [
    'drivingLicenseExp',
    'familyMove',
    'healthIssues',
    'covidVaccinated',
    'covidVaccinatedDate',
    'covidVaccineName',
    'covidVaccinatedStatus',
    'militaryService',
    'militaryWanted',
    'militaryStart',
    'militaryEnd',
    'intRecruitReasons',
    'intRecruitRural',
    'leftHomeReasons',
    'returnedHome',
    'returnHomeSafe',
    'returnHomeFuture',
    'resettleThird',
    'visaIssues',
    'visaReject',
    'workAbroad',
    'workPermit',
    'workPermitDesired',
    'fullIntakeCompletedDate',
    'miniIntakeCompletedDate',
    'englishAssessmentScoreIelts',
    'ieltsScore',
    'frenchAssessmentScoreNclc',
    'refugeeAgencyRegistered',
    'refugeeAgencyStatus',
    'refugeeAgencyNotRegStatus',
    'reliefAgencyRegistered',
    'reliefAgencyNotRegStatus',
    'numberDependants',
    'partnerRegistered',
    'partnerPublicId',
    'partnerCitizenship',
  ];
  /** The stored fields a response shows: what the queries project. */
  const STORED = [
    ...PROFILE_START,
    'countryIsoCode',
    'birthCountryIsoCode',
    'nationalityIsoCode',
    ...PROFILE_MIDDLE,
    'drivingLicenseCountryIsoCode',
    ...PROFILE_HEALTH,
    'partnerEduLevel',
    'partnerEnglish',
    'partnerEnglishLevel',
    'partnerIelts',
    'partnerIeltsScore',
    'partnerIeltsYr',
    'partnerOccupationIsco08Code',
    'candidateCertifications',
    'candidateCitizenships',
    'candidateDestinations',
    'candidateEducations',
    'candidateExams',
    'candidateLanguages',
    'candidateOccupations',
    'candidateSkills',
    'candidateDependants',
    'candidateVisaChecks',
    'maxEducationLevel',
  ];
  const projection = Object.fromEntries([['_id', 0], ...STORED.map((field) => [field, 1])]);

  const job = (doc: Document): Json => {
    const out: Json = {};
    put(out, 'country', country(doc.countryIsoCode));
    if (doc.employerEntity != null) {
      const employer: Json = {};
      put(employer, 'country', country(doc.employerEntity.countryIsoCode));
      put(employer, 'hasHiredInternationally', doc.employerEntity.hasHiredInternationally);
      out.employerEntity = employer;
    }
    for (const field of [
      'evergreen',
      'publishedDate',
      'stage',
      'submissionDueDate',
      'hiringCommitment',
      'employerHiredInternationally',
    ])
      put(out, field, doc[field]);
    return out;
  };

  /** One candidate as the contract shows it; `levels` is the maxEducationLevel of a page or of a single candidate. */
  const toRest = (c: Document, jobs: ReadonlyMap<string, Json>, levels: Lookup): Json => {
    const out = pick(c, PROFILE_START)!;
    put(out, 'country', country(c.countryIsoCode));
    put(out, 'birthCountry', country(c.birthCountryIsoCode));
    put(out, 'nationality', country(c.nationalityIsoCode));
    Object.assign(out, pick(c, PROFILE_MIDDLE));
    put(out, 'drivingLicenseCountry', country(c.drivingLicenseCountryIsoCode));
    Object.assign(out, pick(c, PROFILE_HEALTH));
    put(out, 'partnerEduLevel', educationLevel(c.partnerEduLevel));
    put(out, 'partnerEnglish', c.partnerEnglish);
    put(out, 'partnerEnglishLevel', languageLevel(c.partnerEnglishLevel));
    Object.assign(out, pick(c, ['partnerIelts', 'partnerIeltsScore', 'partnerIeltsYr']));
    put(out, 'partnerOccupation', occupation(c.partnerOccupationIsco08Code));
    put(
      out,
      'candidateCertifications',
      list(c.candidateCertifications, (x: Document) => pick(x, ['name', 'institution', 'dateCompleted'])!),
    );
    put(
      out,
      'candidateCitizenships',
      list(c.candidateCitizenships, (x: Document) => {
        const item = pick(x, ['hasPassport', 'passportExp'])!;
        put(item, 'nationality', country(x.nationalityIsoCode));
        return item;
      }),
    );
    put(
      out,
      'candidateDestinations',
      list(c.candidateDestinations, (x: Document) => {
        const item: Json = {};
        put(item, 'country', country(x.countryIsoCode));
        put(item, 'interest', x.interest);
        return item;
      }),
    );
    put(
      out,
      'candidateEducations',
      list(c.candidateEducations, (x: Document) => {
        const item = pick(x, ['educationType'])!;
        put(item, 'country', country(x.countryIsoCode));
        put(item, 'educationMajor', major(x.educationMajorId));
        return Object.assign(
          item,
          pick(x, ['lengthOfCourseYears', 'institution', 'courseName', 'yearCompleted', 'incomplete']),
        );
      }),
    );
    put(
      out,
      'candidateExams',
      list(c.candidateExams, (x: Document) => pick(x, ['exam', 'otherExam', 'score', 'year'])!),
    );
    put(
      out,
      'candidateLanguages',
      list(c.candidateLanguages, (x: Document) => {
        const item: Json = {};
        put(item, 'language', language(x.languageIsoCode));
        put(item, 'writtenLevel', languageLevel(x.writtenLevel));
        put(item, 'spokenLevel', languageLevel(x.spokenLevel));
        return item;
      }),
    );
    put(
      out,
      'candidateOccupations',
      list(c.candidateOccupations, (x: Document) => {
        const item: Json = {};
        put(item, 'occupation', occupation(x.occupation?.isco08Code));
        put(item, 'yearsExperience', x.yearsExperience);
        put(
          item,
          'candidateJobExperiences',
          list(x.candidateJobExperiences, (e: Document) => {
            const experience: Json = {};
            put(experience, 'country', country(e.countryIsoCode));
            return Object.assign(
              experience,
              pick(e, ['companyName', 'role', 'startDate', 'endDate', 'fullTime', 'paid', 'description']),
            );
          }),
        );
        return item;
      }),
    );
    put(
      out,
      'candidateSkills',
      list(c.candidateSkills, (x: Document) => pick(x, ['skill', 'timePeriod'])!),
    );
    put(
      out,
      'candidateDependants',
      list(c.candidateDependants, (x: Document) =>
        pick(x, ['relation', 'relationOther', 'yearOfBirth', 'gender', 'registered', 'healthConcern'])!,
      ),
    );
    put(
      out,
      'candidateVisaChecks',
      list(c.candidateVisaChecks, (x: Document) => {
        const item: Json = {};
        put(item, 'country', country(x.countryIsoCode));
        Object.assign(
          item,
          pick(x, [
            'protection',
            'englishThreshold',
            'healthAssessment',
            'characterAssessment',
            'securityRisk',
            'overallRisk',
            'validTravelDocs',
            'pathwayAssessment',
            'destinationFamily',
          ]),
        );
        put(
          item,
          'candidateVisaJobChecks',
          list(x.candidateVisaJobChecks, (j: Document) => {
            const check: Json = {};
            put(check, 'jobOpp', j.jobOppPublicId == null ? undefined : jobs.get(j.jobOppPublicId));
            Object.assign(check, pick(j, ['interest', 'qualification']));
            put(check, 'occupation', occupation(j.occupationIsco08Code));
            return Object.assign(
              check,
              pick(j, [
                'salaryTsmit',
                'regional',
                'eligible_494',
                'eligible_186',
                'eligibleOther',
                'putForward',
                'platformEligibility',
                'ageRequirement',
                'languagesRequired',
                'languagesThresholdMet',
              ]),
            );
          }),
        );
        return item;
      }),
    );
    put(out, 'maxEducationLevel', levels(c.maxEducationLevel));
    return out;
  };

  /** The job opportunities the candidates' visa job checks name, in one query. */
  const jobsOf = async (docs: readonly Document[]): Promise<Map<string, Json>> => {
    const ids = new Set<string>();
    for (const c of docs)
      for (const check of c.candidateVisaChecks ?? [])
        for (const jobCheck of check?.candidateVisaJobChecks ?? [])
          if (typeof jobCheck?.jobOppPublicId === 'string') ids.add(jobCheck.jobOppPublicId);
    const jobs = new Map<string, Json>();
    if (ids.size === 0) return jobs;
    for (const doc of await jobOpportunities
      .find({ publicId: { $in: [...ids] } }, { projection: { _id: 0 } })
      .toArray())
      jobs.set(doc.publicId as string, job(doc));
    return jobs;
  };

  const app = express();
  app.disable('x-powered-by');
  app.get('/v1/candidates', async (req, res, next) => {
    try {
      const page = Number(req.query.page ?? 0);
      const limit = Number(req.query.limit ?? 20);
      const filter = { listed: true };
      const [docs, total] = await Promise.all([
        candidates
          .find(filter, { projection })
          .sort({ createdDate: 1, publicId: 1 })
          .skip(page * limit)
          .limit(limit)
          .toArray(),
        candidates.countDocuments(filter),
      ]);
      const jobs = await jobsOf(docs);
      res.json({
        content: docs.map((c) => toRest(c, jobs, pageEducationLevel)),
        totalElements: total,
        totalPages: Math.ceil(total / limit),
        size: limit,
        number: page,
      });
    } catch (error) {
      next(error);
    }
  });
  app.get('/v1/candidates/:publicId', async (req, res, next) => {
    try {
      const c = await candidates.findOne({ publicId: req.params.publicId }, { projection });
      if (c === null) {
        res.status(404).json({ title: 'Not Found', status: 404 });
        return;
      }
      res.json(toRest(c, await jobsOf([c]), educationLevel));
    } catch (error) {
      next(error);
    }
  });

  const server = http.createServer(app);
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    process.send?.({ port });
  });
  const stop = () => {
    server.close();
    void client.close().finally(() => process.exit(0));
  };
  process.on('disconnect', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
