import {
  CEFR_LEVELS,
  EDUCATION_TYPES,
  REFERENCE_COLLECTIONS,
  REFERENCE_STATUSES,
  countries,
  educationFieldGroups,
  educationLevels,
  educationMajors,
  languageLevels,
  languages,
  occupationGroups,
  occupations,
} from '../../src/reference/reference-data';

function duplicates<T>(values: readonly T[]): T[] {
  return values.filter((value, index) => values.indexOf(value) !== index);
}

function isSorted(values: readonly (string | number)[]): boolean {
  return values.every((value, index) => index === 0 || values[index - 1] < value);
}

describe('countries', () => {
  it('when loaded, then there are exactly the 249 officially assigned ISO 3166-1 alpha-2 codes', () => {
    const codes = countries().map((c) => c.isoCode);

    expect(codes).toHaveLength(249);
    expect(duplicates(codes)).toEqual([]);
    expect(codes.filter((code) => !/^[A-Z]{2}$/.test(code))).toEqual([]);
  });

  it('when loaded, then the user-assigned XK is absent and the usual origin and host countries are present', () => {
    const codes = new Set(countries().map((c) => c.isoCode));

    expect(codes.has('XK')).toBe(false);
    for (const code of ['SY', 'LB', 'JO', 'TR', 'KE', 'DE', 'AF', 'UA', 'CA', 'AU', 'GB', 'US']) {
      expect(codes.has(code)).toBe(true);
    }
  });

  it('when loaded, then every country has an English name and they come in code order', () => {
    const all = countries();

    expect(all.filter((c) => c.name.trim() === '')).toEqual([]);
    expect(all.find((c) => c.isoCode === 'DE')?.name).toBe('Germany');
    expect(all.find((c) => c.isoCode === 'SY')?.name).toBe('Syrian Arab Republic');
    expect(isSorted(all.map((c) => c.isoCode))).toBe(true);
  });
});

describe('languages', () => {
  it('when loaded, then every ISO 639-1 code is two lower-case letters, once, in code order', () => {
    const codes = languages().map((l) => l.isoCode);

    expect(codes).toHaveLength(183);
    expect(duplicates(codes)).toEqual([]);
    expect(codes.filter((code) => !/^[a-z]{2}$/.test(code))).toEqual([]);
    expect(isSorted(codes)).toBe(true);
  });

  it('when loaded, then the languages are named in English', () => {
    const names = new Map(languages().map((l) => [l.isoCode, l.name]));

    expect(names.get('ar')).toBe('Arabic');
    expect(names.get('en')).toBe('English');
    expect(names.get('fa')).toBe('Persian');
    expect(names.get('ti')).toBe('Tigrinya');
    expect([...names.values()].filter((name) => name.trim() === '')).toEqual([]);
  });
});

describe('language levels', () => {
  it('when loaded, then each CEFR level is used by exactly one level and only the no-knowledge level has none', () => {
    const levels = languageLevels();
    const cefr = levels.map((l) => l.cefrLevel).filter((c) => c !== null);
    const withoutCefr = levels.filter((l) => l.cefrLevel === null);

    expect(duplicates(cefr)).toEqual([]);
    expect([...cefr].sort()).toEqual([...CEFR_LEVELS]);
    expect(withoutCefr).toEqual([{ level: 0, name: 'No knowledge', cefrLevel: null, status: 'ACTIVE' }]);
  });

  it('when levels are compared, then a higher level means a higher CEFR level', () => {
    const rated = languageLevels().filter((l) => l.cefrLevel !== null);

    expect(isSorted(rated.map((l) => l.level))).toBe(true);
    expect(rated.map((l) => l.cefrLevel)).toEqual([...CEFR_LEVELS]);
    expect(rated.every((l) => Number.isInteger(l.level) && l.level > 0)).toBe(true);
  });
});

describe('occupations', () => {
  it('when loaded, then there are the 436 ISCO-08 unit groups, each a unique 4-digit code with a name', () => {
    const all = occupations();
    const codes = all.map((o) => o.isco08Code);

    expect(all).toHaveLength(436);
    expect(duplicates(codes)).toEqual([]);
    expect(codes.filter((code) => !/^\d{4}$/.test(code))).toEqual([]);
    expect(all.filter((o) => o.name.trim() !== o.name || o.name === '' || o.name.includes('  '))).toEqual([]);
    expect(isSorted(codes)).toBe(true);
  });

  it('when looked up by code, then the official ILO titles come back', () => {
    const names = new Map(occupations().map((o) => [o.isco08Code, o.name]));

    expect(names.get('0110')).toBe('Commissioned Armed Forces Officers');
    expect(names.get('1120')).toBe('Managing Directors and Chief Executives');
    expect(names.get('2211')).toBe('Generalist Medical Practitioners');
    expect(names.get('2221')).toBe('Nursing Professionals');
    expect(names.get('2512')).toBe('Software Developers');
    expect(names.get('2522')).toBe('Systems Administrators');
    expect(names.get('3331')).toBe('Clearing and Forwarding Agents');
    expect(names.get('7212')).toBe('Welders and Flamecutters');
    expect(names.get('8322')).toBe('Car, Taxi and Van Drivers');
    expect(names.get('9629')).toBe('Elementary Workers Not Elsewhere Classified');
  });

  it('when grouped, then every unit group belongs to one of the 130 minor, 43 sub-major and 10 major groups', () => {
    const groups = occupationGroups();
    const codesAt = (level: string) => new Set(groups.filter((g) => g.level === level).map((g) => g.code));
    const [majors, subMajors, minors] = [codesAt('major'), codesAt('subMajor'), codesAt('minor')];

    expect([majors.size, subMajors.size, minors.size]).toEqual([10, 43, 130]);
    expect(occupations().filter((o) => !minors.has(o.isco08Code.slice(0, 3)))).toEqual([]);
    expect([...minors].filter((code) => !subMajors.has(code.slice(0, 2)))).toEqual([]);
    expect([...subMajors].filter((code) => !majors.has(code.slice(0, 1)))).toEqual([]);
    expect(groups.find((g) => g.code === '221')?.title).toBe('Medical Doctors');
  });
});

describe('education levels', () => {
  it('when loaded, then the levels are ISCED 2011 levels 0 to 8 with a name each', () => {
    const levels = educationLevels();

    expect(levels.map((l) => l.level)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(levels.filter((l) => l.name.trim() === '')).toEqual([]);
  });

  it('when loaded, then each education type is used by exactly one level, in the order of the qualifications', () => {
    const typed = educationLevels().filter((l) => l.educationType !== null);
    const levelOf = (type: string) => typed.find((l) => l.educationType === type)?.level;

    expect(typed.map((l) => l.educationType).sort()).toEqual([...EDUCATION_TYPES].sort());
    expect(levelOf('VOCATIONAL')).toBe(4);
    expect(levelOf('ASSOCIATE')).toBe(5);
    expect(levelOf('BACHELOR')).toBe(6);
    expect(levelOf('MASTERS')).toBe(7);
    expect(levelOf('DOCTORAL')).toBe(8);
  });

  it('when a level is below post-secondary education, then it has no education type', () => {
    const belowTertiary = educationLevels().filter((l) => l.level < 4);

    expect(belowTertiary).toHaveLength(4);
    expect(belowTertiary.filter((l) => l.educationType !== null)).toEqual([]);
  });
});

describe('education majors', () => {
  it('when loaded, then codes and ids are unique, and an id is the numeric value of its 4-digit ISCED-F code', () => {
    const majors = educationMajors();

    expect(duplicates(majors.map((m) => m.iscedCode))).toEqual([]);
    expect(duplicates(majors.map((m) => m.id))).toEqual([]);
    expect(majors.filter((m) => !/^\d{4}$/.test(m.iscedCode) || m.id !== Number(m.iscedCode))).toEqual([]);
    expect(majors.filter((m) => !Number.isSafeInteger(m.id))).toEqual([]);
    expect(isSorted(majors.map((m) => m.iscedCode))).toBe(true);
  });

  it('when loaded, then the 80 detailed fields of ISCED-F 2013 are there besides the residual codes', () => {
    const majors = educationMajors();
    const residual = /not further defined|not elsewhere classified|^Inter-disciplinary/;
    const names = new Map(majors.map((m) => [m.iscedCode, m.name]));

    expect(majors.filter((m) => !residual.test(m.name))).toHaveLength(80);
    expect(names.get('0613')).toBe('Software and applications development and analysis');
    expect(names.get('0912')).toBe('Medicine');
    expect(names.get('0610')).toBe('Information and Communication Technologies (ICTs) not further defined');
    expect(names.has('9999')).toBe(false);
  });

  it('when grouped, then every major belongs to one of the 11 broad fields, and every narrow field has a major', () => {
    const groups = educationFieldGroups();
    const broad = new Set(groups.filter((g) => g.level === 'broad').map((g) => g.code));
    const narrow = groups.filter((g) => g.level === 'narrow');
    const codes = educationMajors().map((m) => m.iscedCode);

    expect(broad.size).toBe(11);
    expect(narrow).toHaveLength(29);
    expect(codes.filter((code) => !broad.has(code.slice(0, 2)))).toEqual([]);
    expect(narrow.filter((n) => !codes.some((code) => code.startsWith(n.code)))).toEqual([]);
    expect(narrow.find((n) => n.code === '061')?.name).toBe('Information and Communication Technologies (ICTs)');
  });
});

describe('reference collections', () => {
  it('when listed, then exactly the six collection names of the operator contract are there', () => {
    expect(Object.keys(REFERENCE_COLLECTIONS).sort()).toEqual([
      'countries',
      'educationLevels',
      'educationMajors',
      'languageLevels',
      'languages',
      'occupations',
    ]);
  });

  it.each(Object.entries(REFERENCE_COLLECTIONS))(
    'when %s is loaded, then every entry has a status of the enum and a unique key',
    (_name, { keyField, load }) => {
      const docs = load() as unknown as Record<string, unknown>[];
      const keys = docs.map((doc) => doc[keyField]);

      expect(docs.length).toBeGreaterThan(0);
      expect(docs.filter((doc) => !REFERENCE_STATUSES.includes(doc.status as never))).toEqual([]);
      expect(keys.filter((key) => key === undefined || key === null)).toEqual([]);
      expect(duplicates(keys)).toEqual([]);
    },
  );

  it('when a caller changes the documents it got, then the next load is unchanged', () => {
    const first = occupations();
    first[0].name = 'changed';
    first.pop();
    const levels = languageLevels();
    levels[0].cefrLevel = 'C2';

    expect(occupations()).toHaveLength(436);
    expect(occupations()[0].name).toBe('Commissioned Armed Forces Officers');
    expect(languageLevels()[0].cefrLevel).toBeNull();
  });
});
