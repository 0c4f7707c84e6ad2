import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import { isCalendarDate, isDateTime } from '../common/calendar-date';
import { isPublicId, PUBLIC_ID_RULE } from 'candidate-documents';

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
    // As Int does: a stored value that is no safe integer (Infinity, a fraction, a text) is a
    // field error, never written as a number JSON cannot hold (JSON.stringify writes null).
    serialize: (value) => {
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
        throw new GraphQLError('Long cannot represent a value that is not a safe integer.');
      }
      return value;
    },
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
