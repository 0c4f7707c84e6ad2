import { DemoGenerator } from 'demo-data';
import {
  coldCacheSettings,
  pagesOf,
  seededData,
  shuffled,
  stridedPages,
  strideFor,
  type Rotations,
} from '../../scripts/bench/rotation';
import { coldScenarios } from '../../scripts/bench/scenarios';
import { shippedDemoReference } from '../../src/app/demo-reference';
import { languageLevels } from '../../src/reference/reference-data';

/** The rotations of the benchmark's cold rows (scripts/bench/rotation.ts): cold only if they are what they claim. */

describe('the rotations of the cold benchmark rows', () => {
  test('when items are shuffled, then the order is a permutation and the same in every run', () => {
    const items = Array.from({ length: 1000 }, (_, i) => i);

    const once = shuffled(items);
    const again = shuffled(items);

    expect(again).toEqual(once);
    expect([...once].sort((a, b) => a - b)).toEqual(items);
    expect(once).not.toEqual(items);
  });

  test.each([1, 2, 3, 7, 10, 94, 100, 470, 942, 4707])(
    'when %i pages are rotated in a stride, then every page comes once per cycle',
    (count) => {
      const next = stridedPages(count);

      const cycle = Array.from({ length: count }, () => next());

      expect(new Set(cycle).size).toBe(count);
      expect(Math.max(...cycle)).toBe(count - 1);
      expect(next()).toBe(cycle[0]);
    },
  );

  test('when many pages are rotated in a stride, then the second request already goes deep', () => {
    const stride = strideFor(942);

    expect(stride).toBeGreaterThan(942 / 4);
    expect(942 % stride).not.toBe(0);
  });

  test('when the demo data is regenerated, then every id is there once and every combined filter matches a listed candidate', () => {
    const size = 1500;
    const generator = new DemoGenerator({ candidates: size, seed: 1, reference: shippedDemoReference() });
    const candidates = [...generator.candidates()];

    const data = seededData(size, 1);

    expect([...data.candidateIds].sort()).toEqual([...generator.candidatePublicIds()].sort());
    expect(data.listed).toBe(candidates.filter((c) => c.status !== 'EMPLOYED').length);
    expect(data.combinedFilters.length).toBeGreaterThan(100);
    expect(new Set(data.combinedFilters).size).toBe(data.combinedFilters.length);
    // The listed candidates by nationality: each filter names one, so it looks only at those.
    const listedOf = new Map<string, typeof candidates>();
    for (const c of candidates) {
      if (c.status === 'EMPLOYED') continue;
      const nationality = c.nationalityIsoCode ?? '';
      listedOf.set(nationality, [...(listedOf.get(nationality) ?? []), c]);
    }
    const unmatched = data.combinedFilters.filter((filter) => {
      const query = new URLSearchParams(filter);
      const locations = query.get('location')!.split(',');
      const occupation = query.get('occupation');
      return !(listedOf.get(query.get('nationality')!) ?? []).some(
        (c) =>
          locations.includes(c.countryIsoCode ?? '') &&
          (c.candidateOccupations ?? []).some((o) => o.occupation?.isco08Code === occupation),
      );
    });
    expect(unmatched).toEqual([]);
  });

  test.each([
    [
      '10k',
      {
        ids: 10_000,
        listed: 9_399,
        pagesOf100: 94,
        pagesOf20: 470,
        combinedFilters: 3_977,
        searchFilters: { locationPages: 953, locationOccupation: 16_607, employer: 20_000, keywords: 4_092 },
      },
    ],
    [
      '100k',
      {
        ids: 100_000,
        listed: 94_121,
        pagesOf100: 942,
        pagesOf20: 4_707,
        combinedFilters: 4_048,
        searchFilters: { locationPages: 9_425, locationOccupation: 17_386, employer: 20_000, keywords: 4_092 },
      },
    ],
  ])('when the cold caches are sized for %s, then no rotation fits in them', (_size, rotations: Rotations) => {
    const caches = coldCacheSettings({ entries: 10_000, mb: 64 }, rotations);
    const filtered = Math.min(rotations.combinedFilters, ...Object.values(rotations.searchFilters));

    expect(caches.entries).toBeLessThan(rotations.ids);
    expect(caches.entries).toBeLessThan(rotations.listed);
    expect(Math.ceil(caches.entries / 10)).toBeLessThan(Math.min(rotations.pagesOf100, rotations.pagesOf20, filtered));
    // Answers at their smallest: a by-id answer of 3 KB, a page of 100 of 250 KB, a filtered page of 5 KB.
    expect(caches.mb * 2 ** 20).toBeLessThan(
      Math.min(rotations.ids * 3_000, rotations.pagesOf100 * 250_000, filtered * 5_000),
    );
    expect(caches.entries).toBeGreaterThan(0);
    expect(caches.mb).toBeGreaterThan(0);
  });

  test('when every rotation is far longer than the default caches hold, then the cold rows keep the defaults', () => {
    const rotations: Rotations = {
      ids: 1_000_000,
      listed: 940_000,
      pagesOf100: 9_400,
      pagesOf20: 47_000,
      combinedFilters: 50_000,
      searchFilters: { locationPages: 50_000, locationOccupation: 50_000, employer: 50_000, keywords: 50_000 },
    };

    expect(coldCacheSettings({ entries: 10_000, mb: 64 }, rotations)).toEqual({ entries: 10_000, mb: 64 });
  });

  test("when the demo data is regenerated, then every employer's question and keyword of the cold rows finds a listed candidate, and no rotation repeats a request", () => {
    const size = 1500;
    const reference = shippedDemoReference();
    const listed = [...new DemoGenerator({ candidates: size, seed: 1, reference }).candidates()].filter(
      (c) => c.status !== 'EMPLOYED',
    );
    const cefr = ['A1', 'A2', 'B1', 'B2', 'C1', 'C2'];
    const rankOf = new Map(languageLevels().map((l) => [l.level, cefr.indexOf(l.cefrLevel ?? '')]));
    const wordsOf = (c: (typeof listed)[number]): string[] =>
      [
        ...(c.candidateSkills ?? []).map((s) => s.skill ?? ''),
        ...(c.candidateCertifications ?? []).map((x) => x.name ?? ''),
        ...(c.candidateEducations ?? []).map((e) => e.courseName ?? ''),
        ...(c.candidateOccupations ?? []).flatMap((o) => [
          reference.occupationNames.get(o.occupation?.isco08Code ?? '') ?? '',
          ...(o.candidateJobExperiences ?? []).flatMap((j) => [j.role ?? '', j.description ?? '']),
        ]),
      ]
        .join(' ')
        .toLowerCase()
        .match(/[a-z]+/g) ?? [];

    const data = seededData(size, 1);

    const questions = data.employerFilters.slice(0, 200).map((filter) => {
      const query = new URLSearchParams(filter);
      const [language, level] = query.get('languages')!.split(':');
      const years = Number(query.get('minYearsExperience'));
      const found = listed.some(
        (c) =>
          query
            .get('location')!
            .split(',')
            .includes(c.countryIsoCode ?? '') &&
          (c.candidateOccupations ?? []).some(
            (o) => o.occupation?.isco08Code === query.get('occupation') && (o.yearsExperience ?? -1) >= years,
          ) &&
          (c.candidateLanguages ?? []).some(
            (l) => l.languageIsoCode === language && (rankOf.get(l.spokenLevel ?? -1) ?? -1) >= cefr.indexOf(level),
          ),
      );
      return { filter, found };
    });
    const keywords = data.keywords.slice(0, 200).map((keyword) => {
      const words = new URLSearchParams(keyword).get('keyword')!.split(' ');
      return { keyword, found: listed.some((c) => words.some((word) => wordsOf(c).includes(word))) };
    });

    expect(data.employerFilters.length).toBeGreaterThan(1000);
    expect(data.locationOccupationFilters.length).toBeGreaterThan(100);
    expect(data.locationPages.length).toBeGreaterThan(size / 20);
    expect(data.keywords.length).toBeGreaterThan(100);
    expect(questions.filter((q) => !q.found)).toEqual([]);
    expect(keywords.filter((k) => !k.found)).toEqual([]);
    for (const rotation of [data.employerFilters, data.locationOccupationFilters, data.locationPages, data.keywords])
      expect(new Set(rotation).size).toBe(rotation.length);
  });

  test('when the cold scenarios run, then no request repeats before its rotation has gone round', () => {
    const data = seededData(1500, 1);
    const searchPages = { of100: pagesOf(data.listed, 100), of20: pagesOf(data.listed, 20) };
    const scenarios = coldScenarios({
      apiKey: 'k',
      everyCandidateId: data.candidateIds,
      searchPages,
      combinedFilters: data.combinedFilters,
      searchFilters: {
        locationPages: data.locationPages,
        locationOccupation: data.locationOccupationFilters,
        employer: data.employerFilters,
        keywords: data.keywords,
      },
    });
    const distinct: Record<string, number> = {
      'rest-by-id-cold': data.candidateIds.length,
      'rest-search-100-cold': searchPages.of100,
      'rest-search-100-stride-cold': searchPages.of100,
      'rest-filter-combined-cold': data.combinedFilters.length,
      'rest-filter-location-cold': data.locationPages.length,
      'rest-filter-location-occupation-cold': data.locationOccupationFilters.length,
      'rest-filter-employer-cold': data.employerFilters.length,
      'rest-keyword-cold': data.keywords.length,
      'graphql-deep-cold': searchPages.of20,
    };

    expect(scenarios.map((s) => s.key).sort()).toEqual(Object.keys(distinct).sort());
    for (const scenario of scenarios) {
      const requests = Array.from({ length: distinct[scenario.key] }, () => {
        const request = scenario.next();
        return `${request.method} ${request.path} ${request.body ?? ''}`;
      });
      expect(scenario.heat).toBe('cold');
      expect({ key: scenario.key, distinct: new Set(requests).size }).toEqual({
        key: scenario.key,
        distinct: requests.length,
      });
    }
  });
});
