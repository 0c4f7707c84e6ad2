import type { CandidateStatisticsQuery } from './generated/operations';

type Statistics = CandidateStatisticsQuery['candidateStatistics'];
type Question = Statistics['question'];

/** `text/csv` with a header row (RFC 4180, RFC 7111's `header` parameter). */
export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8; header=present';

/**
 * The filter of a question as GET /v1/statistics takes it: each field of the question and the
 * query parameter that gives it (FILTER_PARAMETERS), written as that parameter is read.
 */
export const QUESTION_FILTER_PARAMETERS = {
  locations: 'location',
  nationalities: 'nationality',
  occupations: 'occupation',
  languages: 'languages',
  minYearsExperience: 'minYearsExperience',
  maxYearsExperience: 'maxYearsExperience',
  minEducationLevel: 'minEducationLevel',
  maxEducationLevel: 'maxEducationLevel',
  minAge: 'minAge',
  maxAge: 'maxAge',
  exams: 'exams',
  keyword: 'keyword',
  inSavedLists: 'inSavedLists',
  notInSavedLists: 'notInSavedLists',
} as const satisfies Record<Exclude<keyof Question, 'groupBy' | 'epsilon' | 'includeEmployed' | '__typename'>, string>;

/**
 * A field of the question as its query parameter's value, URL-encoded (a list's items each, the
 * commas between them not); undefined when the field does not filter.
 */
function parameterValue(question: Question, field: keyof typeof QUESTION_FILTER_PARAMETERS): string | undefined {
  const list = (items: readonly string[] | null | undefined) =>
    items && items.length > 0 ? items.join(',') : undefined;
  switch (field) {
    case 'languages':
      // language:spoken:written, trailing empty levels left off (en:B2:B1, fr:A2, ar::B1)
      return list(
        question.languages?.map(({ language, minSpokenLevel, minWrittenLevel }) =>
          [encodeURIComponent(language), minSpokenLevel ?? '', minWrittenLevel ?? ''].join(':').replace(/:+$/, ''),
        ),
      );
    case 'exams':
      return list(question.exams?.map(({ exam, minScore }) => (minScore == null ? exam : `${exam}:${minScore}`)));
    case 'keyword':
      return question.keyword == null ? undefined : encodeURIComponent(question.keyword);
    case 'minYearsExperience':
    case 'maxYearsExperience':
    case 'minEducationLevel':
    case 'maxEducationLevel':
    case 'minAge':
    case 'maxAge': {
      const value = question[field];
      return value == null ? undefined : String(value);
    }
    default:
      return list(question[field]?.map(encodeURIComponent));
  }
}

/**
 * The question as the path and query of GET /v1/statistics: what the CSV says it answers, and
 * how to ask it again. The playground's statistics view writes the same string.
 */
export function questionUrl(question: Question): string {
  const parameters = [`groupBy=${question.groupBy.join(',')}`, `epsilon=${question.epsilon}`];
  for (const [field, parameter] of Object.entries(QUESTION_FILTER_PARAMETERS) as [
    keyof typeof QUESTION_FILTER_PARAMETERS,
    string,
  ][]) {
    const value = parameterValue(question, field);
    if (value !== undefined) parameters.push(`${parameter}=${value}`);
  }
  if (question.includeEmployed) parameters.push('includeEmployed=true');
  return `/v1/statistics?${parameters.join('&')}`;
}

/**
 * The answer as CSV: a header row; one column per dimension, named as the dimension, holding
 * the code, then one `<dimension>_label` column each; `count`, `low` and `high` (the 95 %
 * interval); then what the numbers mean, the same on every row: `epsilon`, `sensitivity` (Δ),
 * `confidence`, `query` (questionUrl) and `answeredAt`. The first row is the total, its
 * dimension columns empty; then each listed cell, in the answer's order. Lines end in CRLF.
 */
export function statisticsCsv(statistics: Statistics): string {
  const { groupBy } = statistics.question;
  const meaning = [
    String(statistics.epsilon),
    String(statistics.sensitivity),
    String(statistics.confidence),
    questionUrl(statistics.question),
    statistics.answeredAt,
  ];
  const none = groupBy.map(() => '');
  const rows: string[][] = [
    [
      ...groupBy,
      ...groupBy.map((dimension) => `${dimension}_label`),
      ...['count', 'low', 'high', 'epsilon', 'sensitivity', 'confidence', 'query', 'answeredAt'],
    ],
    [
      ...none,
      ...none,
      String(statistics.total ?? 0),
      String(statistics.totalInterval.low),
      String(statistics.totalInterval.high),
      ...meaning,
    ],
  ];
  // Without dimensions the one cell is the total itself.
  if (groupBy.length > 0) {
    for (const cell of statistics.cells) {
      rows.push([
        ...cell.values.map((value) => value.code),
        ...cell.values.map((value) => value.label),
        String(cell.count),
        String(cell.interval.low),
        String(cell.interval.high),
        ...meaning,
      ]);
    }
  }
  return rows.map((row) => row.map(csvField).join(',') + '\r\n').join('');
}

/** A field quoted when it holds a comma, a quote or a line break, its quotes doubled (RFC 4180). */
function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}
