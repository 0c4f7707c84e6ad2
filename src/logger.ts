import pino, { type Logger } from 'pino';
import type { Config } from './config';

export type { Logger };

/**
 * Paths redacted from every log line as a second line of defence: identity values and
 * API keys must never reach a log, even if a caller logs a request or an input by mistake.
 */
const REDACTED_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  '*.apiKey',
  '*.key',
  '*.identity',
  '*.email',
  '*.firstName',
  '*.lastName',
  '*.phone',
  '*.dob',
  '*.professionalNetworkLink',
  '*.refugeeAgencyNumber',
  '*.reliefAgencyNumber',
  '*.messagingAppNumber',
  '*.registrationData',
];

export function createLogger(config: Pick<Config, 'logLevel'>, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level: config.logLevel,
      base: { service: 'candidate-directory' },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
