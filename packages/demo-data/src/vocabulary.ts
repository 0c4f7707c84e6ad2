/**
 * Fixed vocabulary of the demo data: where displaced people come from and live, the
 * occupations they commonly hold, and plain phrases for the free-text fields. Nothing here
 * is a person's name, e-mail address or phone number, and the free texts are written so
 * that none can appear in them.
 */

export type OccupationGroup = 'health' | 'it' | 'engineering' | 'education' | 'business' | 'trade' | 'service';

/** Frequently held occupations (ISCO-08), their weight among demo candidates and a role title. */
export const COMMON_OCCUPATIONS: readonly {
  code: string;
  weight: number;
  role: string;
  group: OccupationGroup;
  /** id of the usual education major (ISCED-F 2013 detailed field) */
  major: number;
}[] = [
  { code: '2211', weight: 6, role: 'General practitioner', group: 'health', major: 912 },
  { code: '2212', weight: 2, role: 'Specialist physician', group: 'health', major: 912 },
  { code: '2221', weight: 7, role: 'Registered nurse', group: 'health', major: 913 },
  { code: '2222', weight: 2, role: 'Midwife', group: 'health', major: 913 },
  { code: '3221', weight: 5, role: 'Nurse assistant', group: 'health', major: 913 },
  { code: '2262', weight: 3, role: 'Pharmacist', group: 'health', major: 916 },
  { code: '2261', weight: 2, role: 'Dentist', group: 'health', major: 911 },
  { code: '3212', weight: 2, role: 'Laboratory technician', group: 'health', major: 914 },
  { code: '2264', weight: 1, role: 'Physiotherapist', group: 'health', major: 915 },
  { code: '5321', weight: 2, role: 'Care worker', group: 'health', major: 921 },
  { code: '2512', weight: 7, role: 'Software developer', group: 'it', major: 613 },
  { code: '2513', weight: 3, role: 'Web developer', group: 'it', major: 613 },
  { code: '2514', weight: 2, role: 'Applications programmer', group: 'it', major: 613 },
  { code: '2523', weight: 2, role: 'Network engineer', group: 'it', major: 612 },
  { code: '2166', weight: 2, role: 'Graphic designer', group: 'it', major: 212 },
  { code: '2142', weight: 4, role: 'Civil engineer', group: 'engineering', major: 732 },
  { code: '2144', weight: 2, role: 'Mechanical engineer', group: 'engineering', major: 715 },
  { code: '2151', weight: 2, role: 'Electrical engineer', group: 'engineering', major: 713 },
  { code: '3118', weight: 1, role: 'Draughtsperson', group: 'engineering', major: 731 },
  { code: '2310', weight: 3, role: 'University lecturer', group: 'education', major: 311 },
  { code: '2330', weight: 4, role: 'Secondary school teacher', group: 'education', major: 114 },
  { code: '2341', weight: 3, role: 'Primary school teacher', group: 'education', major: 113 },
  { code: '2342', weight: 1, role: 'Early childhood educator', group: 'education', major: 112 },
  { code: '2643', weight: 3, role: 'Interpreter', group: 'education', major: 232 },
  { code: '2635', weight: 2, role: 'Social worker', group: 'education', major: 923 },
  { code: '2411', weight: 4, role: 'Accountant', group: 'business', major: 411 },
  { code: '3313', weight: 2, role: 'Bookkeeper', group: 'business', major: 411 },
  { code: '4110', weight: 3, role: 'Office clerk', group: 'business', major: 415 },
  { code: '2431', weight: 1, role: 'Marketing officer', group: 'business', major: 414 },
  { code: '7212', weight: 5, role: 'Welder', group: 'trade', major: 715 },
  { code: '7411', weight: 4, role: 'Electrician', group: 'trade', major: 713 },
  { code: '7115', weight: 3, role: 'Carpenter', group: 'trade', major: 722 },
  { code: '7231', weight: 4, role: 'Car mechanic', group: 'trade', major: 716 },
  { code: '7126', weight: 2, role: 'Plumber', group: 'trade', major: 732 },
  { code: '7112', weight: 2, role: 'Bricklayer', group: 'trade', major: 732 },
  { code: '7122', weight: 1, role: 'Tile setter', group: 'trade', major: 732 },
  { code: '7531', weight: 3, role: 'Tailor', group: 'trade', major: 723 },
  { code: '7512', weight: 2, role: 'Baker', group: 'trade', major: 721 },
  { code: '8332', weight: 2, role: 'Truck driver', group: 'trade', major: 1041 },
  { code: '8322', weight: 2, role: 'Driver', group: 'trade', major: 1041 },
  { code: '5120', weight: 5, role: 'Cook', group: 'service', major: 1013 },
  { code: '5131', weight: 2, role: 'Waiter', group: 'service', major: 1013 },
  { code: '5141', weight: 2, role: 'Hairdresser', group: 'service', major: 1012 },
  { code: '5223', weight: 2, role: 'Shop assistant', group: 'service', major: 416 },
  { code: '5311', weight: 1, role: 'Childcare worker', group: 'service', major: 922 },
  { code: '6111', weight: 2, role: 'Farmer', group: 'service', major: 811 },
];

/** The occupation group of an ISCO-08 code that is not in COMMON_OCCUPATIONS. */
export function occupationGroupOf(isco08Code: string): OccupationGroup {
  const major = isco08Code.slice(0, 2);
  if (major === '22' || major === '32') return 'health';
  if (major === '25' || major === '35') return 'it';
  if (major === '21' || major === '31') return 'engineering';
  if (major === '23' || major === '26') return 'education';
  if (major.startsWith('1') || major === '24' || major === '33' || major.startsWith('4')) return 'business';
  if (major.startsWith('7') || major.startsWith('8')) return 'trade';
  return 'service';
}

/** Education majors (ISCED-F 2013 detailed fields, by id) that fit an occupation group. */
export const GROUP_MAJORS: Record<OccupationGroup, readonly number[]> = {
  health: [912, 913, 914, 916, 911, 915],
  it: [613, 612, 611, 619],
  engineering: [732, 715, 713, 714, 731, 711],
  education: [114, 113, 111, 232, 231, 923, 313],
  business: [411, 412, 413, 414, 415, 311, 421],
  trade: [715, 713, 716, 723, 732, 1041],
  service: [1013, 1012, 811, 922, 721],
};

export interface Weighted<T> {
  readonly value: T;
  readonly weight: number;
}

function w<T>(value: T, weight: number): Weighted<T> {
  return { value, weight };
}

export interface OriginCountry {
  readonly weight: number;
  readonly homeCities: readonly string[];
  /** ISO 639-1 codes, the first being the most common mother tongue */
  readonly languages: readonly string[];
  readonly hosts: readonly Weighted<string>[];
  /** first year of large displacement */
  readonly displacedSince: number;
}

/** Nationalities of demo candidates, with the countries where people of that nationality live. */
export const ORIGINS: Readonly<Record<string, OriginCountry>> = {
  SY: {
    weight: 30,
    homeCities: ['Aleppo', 'Damascus', 'Homs', 'Hama', 'Idlib', 'Deir ez-Zor', 'Raqqa', 'Daraa', 'Latakia'],
    languages: ['ar', 'ku'],
    hosts: [w('TR', 30), w('LB', 25), w('JO', 20), w('DE', 15), w('EG', 5), w('IQ', 5)],
    displacedSince: 2011,
  },
  AF: {
    weight: 15,
    homeCities: ['Kabul', 'Herat', 'Kandahar', 'Mazar-i-Sharif', 'Jalalabad', 'Kunduz'],
    languages: ['fa', 'ps'],
    hosts: [w('PK', 45), w('IR', 25), w('TR', 10), w('DE', 15), w('GR', 5)],
    displacedSince: 2001,
  },
  SD: {
    weight: 8,
    homeCities: ['Khartoum', 'Omdurman', 'El Fasher', 'Nyala', 'Port Sudan', 'Wad Madani'],
    languages: ['ar'],
    hosts: [w('EG', 40), w('TD', 20), w('UG', 15), w('KE', 15), w('ET', 10)],
    displacedSince: 2003,
  },
  ER: {
    weight: 6,
    homeCities: ['Asmara', 'Keren', 'Massawa', 'Mendefera'],
    languages: ['ti', 'ar'],
    hosts: [w('ET', 40), w('SD', 15), w('KE', 15), w('UG', 15), w('DE', 15)],
    displacedSince: 2001,
  },
  UA: {
    weight: 10,
    homeCities: ['Kharkiv', 'Mariupol', 'Kherson', 'Mykolaiv', 'Zaporizhzhia', 'Odesa', 'Kyiv'],
    languages: ['uk', 'ru'],
    hosts: [w('PL', 35), w('DE', 35), w('CZ', 15), w('MD', 10), w('GB', 5)],
    displacedSince: 2022,
  },
  MM: {
    weight: 6,
    homeCities: ['Sittwe', 'Maungdaw', 'Buthidaung', 'Yangon', 'Mandalay'],
    languages: ['my'],
    hosts: [w('BD', 70), w('MY', 20), w('TH', 10)],
    displacedSince: 2012,
  },
  PS: {
    weight: 5,
    homeCities: ['Gaza', 'Khan Younis', 'Rafah', 'Nablus', 'Hebron', 'Jenin'],
    languages: ['ar'],
    hosts: [w('JO', 50), w('LB', 30), w('EG', 20)],
    displacedSince: 2000,
  },
  IQ: {
    weight: 6,
    homeCities: ['Mosul', 'Baghdad', 'Basra', 'Sinjar', 'Fallujah', 'Kirkuk'],
    languages: ['ar', 'ku'],
    hosts: [w('TR', 35), w('DE', 30), w('JO', 25), w('LB', 10)],
    displacedSince: 2003,
  },
  SO: {
    weight: 4,
    homeCities: ['Mogadishu', 'Kismayo', 'Baidoa', 'Beledweyne'],
    languages: ['so', 'ar'],
    hosts: [w('KE', 60), w('ET', 25), w('UG', 15)],
    displacedSince: 2000,
  },
  YE: {
    weight: 3,
    homeCities: ['Sanaa', 'Aden', 'Taiz', 'Hodeidah'],
    languages: ['ar'],
    hosts: [w('EG', 40), w('JO', 30), w('DJ', 30)],
    displacedSince: 2015,
  },
  VE: {
    weight: 4,
    homeCities: ['Caracas', 'Maracaibo', 'Barquisimeto', 'Ciudad Guayana'],
    languages: ['es'],
    hosts: [w('CO', 50), w('PE', 25), w('EC', 15), w('BR', 10)],
    displacedSince: 2015,
  },
  SS: {
    weight: 3,
    homeCities: ['Juba', 'Malakal', 'Wau', 'Bor'],
    languages: ['en', 'ar'],
    hosts: [w('UG', 50), w('KE', 30), w('ET', 20)],
    displacedSince: 2013,
  },
  CD: {
    weight: 3,
    homeCities: ['Goma', 'Bukavu', 'Bunia', 'Uvira'],
    languages: ['fr', 'sw'],
    hosts: [w('UG', 40), w('RW', 25), w('TZ', 20), w('KE', 15)],
    displacedSince: 2000,
  },
};

export interface HostCountry {
  readonly cities: readonly string[];
  /** ISO 639-1 codes of the languages spoken there */
  readonly languages: readonly string[];
}

/** Countries where demo candidates live now. */
export const HOSTS: Readonly<Record<string, HostCountry>> = {
  LB: { cities: ['Beirut', 'Tripoli', 'Zahle', 'Saida', 'Tyre', 'Baalbek'], languages: ['ar', 'fr'] },
  JO: { cities: ['Amman', 'Irbid', 'Zarqa', 'Mafraq', 'Ramtha'], languages: ['ar'] },
  TR: { cities: ['Istanbul', 'Gaziantep', 'Sanliurfa', 'Hatay', 'Mersin', 'Ankara', 'Izmir'], languages: ['tr'] },
  DE: { cities: ['Berlin', 'Hamburg', 'Munich', 'Cologne', 'Frankfurt', 'Leipzig'], languages: ['de'] },
  EG: { cities: ['Cairo', 'Alexandria', 'Giza', 'Aswan'], languages: ['ar'] },
  IQ: { cities: ['Erbil', 'Duhok', 'Sulaymaniyah'], languages: ['ar', 'ku'] },
  PK: { cities: ['Peshawar', 'Quetta', 'Islamabad', 'Karachi', 'Lahore'], languages: ['ur'] },
  IR: { cities: ['Tehran', 'Mashhad', 'Isfahan', 'Shiraz'], languages: ['fa'] },
  GR: { cities: ['Athens', 'Thessaloniki'], languages: ['el'] },
  TD: { cities: ['Abeche', 'Farchana', 'Goz Beida'], languages: ['fr', 'ar'] },
  KE: { cities: ['Nairobi', 'Kakuma', 'Dadaab', 'Mombasa', 'Nakuru'], languages: ['sw', 'en'] },
  UG: { cities: ['Kampala', 'Arua', 'Gulu', 'Mbarara'], languages: ['en', 'sw'] },
  ET: { cities: ['Addis Ababa', 'Gambela', 'Shire', 'Jijiga'], languages: ['am'] },
  SD: { cities: ['Kassala', 'Gedaref'], languages: ['ar'] },
  PL: { cities: ['Warsaw', 'Krakow', 'Wroclaw', 'Gdansk', 'Lodz'], languages: ['pl'] },
  CZ: { cities: ['Prague', 'Brno', 'Ostrava'], languages: ['cs'] },
  MD: { cities: ['Chisinau', 'Balti'], languages: ['ro'] },
  GB: { cities: ['London', 'Manchester', 'Birmingham', 'Glasgow'], languages: ['en'] },
  BD: { cities: ["Cox's Bazar", 'Ukhia', 'Teknaf'], languages: ['bn'] },
  MY: { cities: ['Kuala Lumpur', 'Penang', 'Johor Bahru'], languages: ['ms'] },
  TH: { cities: ['Mae Sot', 'Bangkok', 'Chiang Mai'], languages: ['th'] },
  DJ: { cities: ['Djibouti', 'Obock'], languages: ['fr', 'ar'] },
  CO: { cities: ['Bogota', 'Medellin', 'Cucuta', 'Barranquilla', 'Cali'], languages: ['es'] },
  PE: { cities: ['Lima', 'Arequipa', 'Trujillo'], languages: ['es'] },
  EC: { cities: ['Quito', 'Guayaquil'], languages: ['es'] },
  BR: { cities: ['Boa Vista', 'Manaus', 'Sao Paulo'], languages: ['pt'] },
  RW: { cities: ['Kigali', 'Huye'], languages: ['rw', 'fr', 'en'] },
  TZ: { cities: ['Kigoma', 'Dar es Salaam'], languages: ['sw'] },
};

/** Countries that recruit displaced talent: destinations and job locations. */
export const DESTINATIONS: readonly Weighted<string>[] = [
  w('CA', 30),
  w('AU', 25),
  w('GB', 15),
  w('NZ', 8),
  w('IE', 6),
  w('US', 6),
  w('DE', 5),
  w('BE', 3),
  w('PT', 2),
];

/** The destination whose visa checks carry salaryTsmit, eligible_494 and eligible_186. */
export const POINTS_TEST_DESTINATION = 'AU';

/** Certifications of the occupations that professions.ts does not describe, by group: ones any of them may hold. */
export const CERTIFICATIONS: Record<OccupationGroup, readonly { name: string; institution: string }[]> = {
  health: [
    { name: 'Basic Life Support (BLS)', institution: 'American Heart Association' },
    { name: 'Infection Prevention and Control', institution: 'World Health Organization online course' },
    { name: 'Mental Health First Aid', institution: 'International Medical Corps' },
  ],
  it: [
    { name: 'AWS Certified Cloud Practitioner', institution: 'Amazon Web Services' },
    { name: 'Google Data Analytics Certificate', institution: 'Coursera' },
  ],
  engineering: [
    { name: 'AutoCAD Certified Professional', institution: 'Autodesk Training Centre' },
    { name: 'International General Certificate in Occupational Health and Safety', institution: 'NEBOSH' },
    { name: 'Project Management Professional (PMP)', institution: 'Project Management Institute' },
  ],
  education: [
    { name: 'Teaching in Emergencies', institution: 'UNICEF Learning Passport' },
    { name: 'Psychological First Aid', institution: 'Red Cross Red Crescent' },
  ],
  business: [
    { name: 'Microsoft Office Specialist: Excel', institution: 'Microsoft' },
    { name: 'Customer Service Excellence', institution: 'Vocational Training Centre' },
  ],
  trade: [
    { name: 'Workplace Safety Card', institution: 'Construction Industry Training Board' },
    { name: 'First Aid at Work', institution: 'Red Crescent Society' },
  ],
  service: [
    { name: 'Food Safety Level 2', institution: 'Hospitality Training Institute' },
    { name: 'First Aid at Work', institution: 'Red Crescent Society' },
  ],
};

/** Skills of the occupations that professions.ts does not describe, by group. */
export const SKILLS: Record<OccupationGroup, readonly string[]> = {
  health: ['Patient care', 'Health education', 'Infection control', 'Medical records'],
  it: ['JavaScript', 'Python', 'SQL databases', 'Network administration', 'Linux'],
  engineering: ['AutoCAD', 'Technical drawing', 'Site supervision', 'Project planning'],
  education: ['Lesson planning', 'Public speaking', 'Report writing', 'Psychosocial support'],
  business: ['Microsoft Excel', 'Customer service', 'Report writing', 'Record keeping'],
  trade: ['Hand and power tools', 'Reading drawings', 'Workshop safety', 'Maintenance and repair'],
  service: ['Customer service', 'Cash handling', 'Food hygiene', 'Teamwork'],
};

export const SKILL_PERIODS: readonly string[] = [
  '6 months',
  '1 year',
  '2 years',
  '3 years',
  '5 years',
  'more than 10 years',
];

/**
 * Descriptions of jobs in the occupations that professions.ts does not describe, by group: plain
 * enough to fit any occupation of the group (an author, a librarian and a teacher are all
 * "education").
 */
export const JOB_DESCRIPTIONS: Record<OccupationGroup, readonly string[]> = {
  health: [
    'Worked in a hospital team, following clinical protocols and keeping patient records.',
    'Worked in a primary health clinic serving the local community.',
    'Supported doctors and nurses in outpatient care and emergencies.',
  ],
  it: [
    'Worked in the IT department of a medium-sized company.',
    'Delivered technical projects for business customers.',
    'Supported users and kept the systems running.',
  ],
  engineering: [
    'Worked on technical projects from design to handover.',
    'Checked the work on site against drawings and specifications.',
    'Planned and supervised maintenance work.',
  ],
  education: [
    'Worked with students, families and colleagues in a school or a community programme.',
    'Prepared materials and sessions for groups of learners.',
    'Worked in community programmes run with aid organisations.',
  ],
  business: [
    'Handled records, reports and correspondence for a trading company.',
    'Worked in the administration of a public office.',
    'Dealt with customers and suppliers and kept the files in order.',
  ],
  trade: [
    'Carried out repairs and installations for private and business customers.',
    'Worked in a small workshop producing made-to-order pieces.',
    'Worked on building sites and in workshops as part of a small team.',
  ],
  service: [
    'Served customers and handled the daily running of a small business.',
    'Worked shifts in a busy hospitality business.',
    'Worked seasonal jobs in farming and food production.',
  ],
};

/** Company name patterns; `{city}` is replaced by a city name. */
export const COMPANY_PATTERNS: Record<OccupationGroup, readonly string[]> = {
  health: ['{city} General Hospital', '{city} Community Clinic', 'Red Crescent Clinic {city}', '{city} Medical Centre'],
  it: ['{city} Software House', 'Digital Solutions {city}', '{city} Telecom', 'Freelance web studio'],
  engineering: ['{city} Construction Company', 'Public Works Directorate {city}', '{city} Engineering Consultants'],
  education: ['{city} Secondary School', 'University of {city}', '{city} Language Centre', 'Community learning centre'],
  business: ['{city} Trading Company', '{city} Import and Export', 'Municipality of {city}', '{city} Bank branch'],
  trade: ['{city} Metal Works', '{city} Auto Repair', 'Family workshop in {city}', '{city} Transport Cooperative'],
  service: ['{city} Restaurant', '{city} Bakery', 'Hotel in {city}', 'Family farm near {city}'],
};

/** Institution patterns by kind of education; `{city}` is replaced by a city name. */
export const INSTITUTION_PATTERNS: Readonly<Record<'vocational' | 'tertiary', readonly string[]>> = {
  vocational: ['{city} Technical Institute', '{city} Vocational Training Centre', '{city} Polytechnic'],
  tertiary: ['University of {city}', '{city} University', '{city} Institute of Technology'],
};

export const CANDIDATE_MESSAGES: readonly string[] = [
  'I am looking for a chance to work in my profession again and to support my family.',
  'I would like to use my experience in a country where I can build a stable future.',
  'I am ready to learn the language and to retrain where my qualifications need it.',
  'I have worked in my field for many years and I want to continue my career safely.',
  'I hope to find an employer who values skills and hard work.',
  'My goal is a legal job abroad so that my children can go to school.',
  'I am motivated, reliable and used to working in a team.',
  'I can start quickly and I am willing to relocate anywhere the job is.',
];

export const HOST_CHALLENGES: readonly string[] = [
  'Work permits are hard to obtain here.',
  'My qualifications are not recognised in this country.',
  'I can only find informal work with low pay.',
  'The language barrier makes it hard to work in my field.',
  'Rent and living costs are higher than what I can earn.',
  'Refugees are not allowed to work in my profession here.',
  'There is no safe long-term legal status for my family.',
  'Travel outside the camp is restricted.',
];

export const MEDIA_WILLINGNESS: readonly Weighted<string>[] = [
  w('No', 40),
  w('Yes, anonymously', 25),
  w('Yes, without showing my face', 15),
  w('Yes', 10),
  w('Only written interviews', 10),
];

export const AVAIL_IMMEDIATE_JOB_OPS: readonly string[] = [
  'Yes, any job in my occupation',
  'Only jobs that allow my family to move with me',
  'Yes, after a notice period of one month',
  'No, I need time to finish my current commitments',
];

export const COVID_VACCINES: readonly string[] = [
  'Pfizer-BioNTech',
  'AstraZeneca',
  'Sinopharm',
  'Moderna',
  'Sputnik V',
  'Janssen',
];

export const OTHER_EXAMS: readonly { name: string; scores: readonly string[] }[] = [
  { name: 'Goethe-Zertifikat', scores: ['A2', 'B1', 'B2', 'C1'] },
  { name: 'DELF', scores: ['A2', 'B1', 'B2'] },
  { name: 'TCF Canada', scores: ['NCLC 5', 'NCLC 7', 'NCLC 9'] },
  { name: 'Cambridge English B2 First', scores: ['Grade B', 'Grade C', 'Pass'] },
];

export const OTHER_RELATIONS: readonly string[] = ['Niece', 'Nephew', 'Stepchild', 'Grandchild', 'Foster child'];

export const SAVED_LIST_NAMES: readonly string[] = [
  'Nurses for the Canada pilot',
  'Software developers shortlist',
  'Skilled trades for Australia',
  'Teachers and interpreters',
  'Healthcare pool',
  'Open outreach list',
];

/** Sizes of the demo saved lists (capped at the number of candidates): one is above the page limit of 100. */
export const SAVED_LIST_SIZES: readonly number[] = [5, 12, 20, 50, 150, 400];

export const REGISTRAR_IDS: readonly string[] = [
  'demo-registrar-ngo-1',
  'demo-registrar-ngo-2',
  'demo-registrar-agency-1',
];
