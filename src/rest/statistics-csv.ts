import type { CandidateStatisticsQuery } from './generated/operations';

type Statistics = CandidateStatisticsQuery['candidateStatistics'];
type Question = Statistics['question'];

/** `text/csv` with a header row (RFC 4180, RFC 7111's `header` parameter). */
export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8; header=present';

/**
 * The filter of a question as GET /v1/statistics takes it: each list of codes of the question
 * and the query parameter that gives it (FILTER_PARAMETERS).
 */
export const QUESTION_FILTER_PARAMETERS = {
  locations: 'location',
  nationalities: 'nationality',
  occupations: 'occupation',
} as const satisfies Partial<Record<keyof Question, string>>;

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
    const codes = question[field];
    if (codes.length > 0) parameters.push(`${parameter}=${codes.map(encodeURIComponent).join(',')}`);
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
