import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import { isPublicId, PUBLIC_ID_RULE } from '../common/public-id';

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

function invalid(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } });
}

/** A scalar whose wire form is a string that must pass `check`. */
function stringScalar(name: string, description: string, check: (value: string) => boolean, rule: string) {
  const parse = (value: unknown): string => {
    if (typeof value !== 'string' || !check(value)) throw invalid(`${name} must be ${rule}.`);
    return value;
  };
  return { name, description, parse };
}

function isCalendarDate(value: string): boolean {
  const match = DATE_PATTERN.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function isDateTime(value: string): boolean {
  return DATE_TIME_PATTERN.test(value) && isCalendarDate(value.slice(0, 10)) && !Number.isNaN(Date.parse(value));
}

function fromString(
  { name, description, parse }: ReturnType<typeof stringScalar>,
  serialize: (value: unknown) => string,
) {
  return new GraphQLScalarType({
    name,
    description,
    serialize,
    parseValue: parse,
    parseLiteral: (ast: ValueNode) => parse(ast.kind === Kind.STRING ? ast.value : undefined),
  });
}

const publicId = stringScalar('PublicId', 'A 22-character base64url public id.', isPublicId, PUBLIC_ID_RULE);
const date = stringScalar(
  'Date',
  'An ISO 8601 calendar date.',
  isCalendarDate,
  'an ISO 8601 calendar date (YYYY-MM-DD)',
);
const dateTime = stringScalar(
  'DateTime',
  'An ISO 8601 date-time with zone.',
  isDateTime,
  'an ISO 8601 date-time with zone',
);

export const scalarResolvers = {
  PublicId: fromString(publicId, (value) => String(value)),
  Date: fromString(date, (value) => String(value)),
  DateTime: fromString(dateTime, (value) => (value instanceof Date ? value.toISOString() : String(value))),
  Long: new GraphQLScalarType({
    name: 'Long',
    description: 'A 64-bit integer within the safe range of a JSON number.',
    serialize: (value) => value as number,
    parseValue: (value) => {
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw invalid('Long must be a safe integer.');
      return value;
    },
    parseLiteral: (ast) => {
      const value = ast.kind === Kind.INT ? Number(ast.value) : NaN;
      if (!Number.isSafeInteger(value)) throw invalid('Long must be a safe integer.');
      return value;
    },
  }),
};
