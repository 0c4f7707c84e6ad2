import pino, { type Logger } from 'pino';
import type { Config } from './config';

export type { Logger };

/**
 * Fields redacted from every log line, at the top level and one level down, as a second line of
 * defence: identity values and API keys must never reach a log, even if a caller logs a request
 * or an input by mistake.
 */
const IDENTITY_FIELDS = [
  'apiKey',
  'key',
  'identity',
  'email',
  'emailKey',
  'emailNormalised',
  'firstName',
  'lastName',
  'phone',
  'dob',
  'professionalNetworkLink',
  'refugeeAgencyNumber',
  'reliefAgencyNumber',
  'messagingAppNumber',
  'registrationData',
];

/**
 * Fields of MongoDB driver errors that quote written or stored values: the duplicate key of an
 * E11000 (`keyValue`, `errmsg`, the server's whole reply in `errorResponse`), validation details
 * (`errInfo`), the documents of a failed bulk write (`writeErrors`, `result`, `op`).
 */
const DRIVER_ERROR_FIELDS = [
  'keyValue',
  'errmsg',
  'errorResponse',
  'errInfo',
  'writeErrors',
  'writeConcernError',
  'result',
  'op',
];

const REDACTED_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  // `*.email` does not match a top-level `email`: both are listed.
  ...IDENTITY_FIELDS.flatMap((field) => [field, `*.${field}`]),
  ...DRIVER_ERROR_FIELDS.flatMap((field) => [`*.${field}`, `err.*.${field}`]),
];

/** E11000 messages end with the duplicate value (`dup key: { emailKey: "…" }`), also on the stack's first line. */
const DUPLICATE_KEY_VALUE = /dup key: [\s\S]*?(?=\n\s+at |$)/g;

/**
 * pino's error serializer (message and stack include those of every `cause`), minus the values
 * driver messages quote. Redaction cannot do this: it removes whole fields, and the message of
 * an unexpected error is what an operator needs.
 */
function serializeError(error: Error): unknown {
  const serialized = pino.stdSerializers.err(error);
  if ((serialized as unknown) === error) return serialized; // not error-like: left to redaction
  const fields = serialized as unknown as Record<string, unknown>;
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === 'string') fields[name] = value.replace(DUPLICATE_KEY_VALUE, 'dup key: [redacted]');
  }
  return serialized;
}

export function createLogger(config: Pick<Config, 'logLevel'>, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level: config.logLevel,
      base: { service: 'candidate-directory' },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: { err: serializeError },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

/**
 * A logger writing where `logger` writes, at its level, without redaction: only for lines whose
 * fields are fixed by the code and hold no value a caller sent (the one request line per
 * request, src/observability/request-observer.ts), where redaction finds nothing and only costs.
 */
export function unredactedSibling(logger: Logger): Logger {
  const destination = (logger as unknown as Record<symbol, pino.DestinationStream>)[pino.symbols.streamSym];
  return pino(
    {
      level: logger.level,
      base: { service: 'candidate-directory' },
      serializers: { err: serializeError },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
