import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig, settings, settingsTable } from '../../src/config';

describe('configuration', () => {
  test('when no variable is set, then every documented default applies', () => {
    const config = loadConfig({});

    expect(config.port).toBe(8080);
    expect(config.host).toBe('127.0.0.1');
    expect(config.mongodbUri).toBe('');
    expect(config.mongodbDb).toBe('candidate_directory');
    expect(config.dataDir).toBe(path.resolve('.data'));
    expect(config.logLevel).toBe('info');
    expect(config.demoCandidates).toBe(2000);
  });

  test('when variables are set, then they are parsed to their types', () => {
    const config = loadConfig({
      PORT: '0',
      MONGODB_URI: 'mongodb://db:27017',
      DEMO_CANDIDATES: '15',
      LOG_LEVEL: 'warn',
    });

    expect(config.port).toBe(0);
    expect(config.mongodbUri).toBe('mongodb://db:27017');
    expect(config.demoCandidates).toBe(15);
    expect(config.logLevel).toBe('warn');
  });

  test('when several variables are invalid, then one error names every bad variable', () => {
    const attempt = () => loadConfig({ PORT: '70000', MONGODB_URI: 'postgres://x', LOG_LEVEL: 'loud' });

    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (error) {
      const problems = (error as ConfigError).problems.join('\n');
      expect(problems).toContain('PORT: ');
      expect(problems).toContain('MONGODB_URI: must start with mongodb:// or mongodb+srv://');
      expect(problems).toContain('LOG_LEVEL: ');
    }
  });

  /** Everything a ConfigError shows: its message, its problems, its stack. */
  function shown(attempt: () => unknown): string {
    try {
      attempt();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return [(error as ConfigError).message, ...(error as ConfigError).problems, (error as Error).stack].join('\n');
    }
    throw new Error('the configuration was accepted');
  }

  /** Every part of a secret worth hiding: the whole, and each run of 6 characters of it. */
  function piecesOf(secret: string): string[] {
    const pieces = [secret];
    for (let i = 0; i + 6 <= secret.length; i++) pieces.push(secret.slice(i, i + 6));
    return pieces;
  }

  const PASSWORD = 'Pa55-w0rd-for-refugee-data';
  const HEX_KEY = '9f3c1a7be2d94c6f8a0b5e1d2c3f4a5b6c7d8e9fa0b1c2d3e4f5a6b7c8d9e0f1';

  /** One wrong value per setting that holds a secret, as an operator gets it wrong. */
  const SECRET_MISTAKES: Record<string, { value: string; secret: string; rule: RegExp }[]> = {
    MONGODB_URI: [
      {
        value: `mongdb://admin:${PASSWORD}@db.internal:27017/?replicaSet=rs0`,
        secret: PASSWORD,
        rule: /^MONGODB_URI: must start with mongodb:\/\/ or mongodb\+srv:\/\/$/,
      },
      {
        value: `mongodb+srv://admin:${PASSWORD}@cluster.example.net:27017/candidates`,
        secret: PASSWORD,
        rule: /^MONGODB_URI: must be a MongoDB connection string the driver accepts \(mongodb\+srv URI cannot have port number\)$/,
      },
      {
        // The driver's reason repeats the option's value ("got ..."): only the rule is told.
        value: `mongodb://admin@db.internal/?authMechanism=${PASSWORD}`,
        secret: PASSWORD,
        rule: /^MONGODB_URI: must be a MongoDB connection string the driver accepts$/,
      },
    ],
    WEBHOOK_SECRET_KEY: [
      {
        value: HEX_KEY,
        secret: HEX_KEY,
        rule: /^WEBHOOK_SECRET_KEY: must be the base64 of 32 bytes, and this is hexadecimal/,
      },
      {
        value: Buffer.from(HEX_KEY.slice(0, 40), 'hex').toString('base64'),
        secret: Buffer.from(HEX_KEY.slice(0, 40), 'hex').toString('base64'),
        rule: /^WEBHOOK_SECRET_KEY: must be the base64 of 32 bytes, 44 characters ending in =/,
      },
    ],
    DEMO_API_KEY: [
      {
        value: `cdk-${'k'.repeat(43)}`,
        secret: `cdk-${'k'.repeat(43)}`,
        rule: /^DEMO_API_KEY: must be an API key as `npm run keys -- create` prints it/,
      },
    ],
  };

  test('when a setting holds a secret, then it has wrong values to try here (a new secret setting needs its own)', () => {
    const secretSettings = Object.values(settings)
      .filter((setting) => 'secret' in setting && setting.secret)
      .map((setting) => setting.env)
      .sort();

    expect(secretSettings).toEqual(Object.keys(SECRET_MISTAKES).sort());
  });

  test.each(
    Object.entries(SECRET_MISTAKES).flatMap(([env, mistakes]) => mistakes.map((mistake) => [env, mistake] as const)),
  )(
    'when %s is set wrong (%#), then the error names the variable and the rule, and no part of the secret',
    (env, { value, secret, rule }) => {
      // Act
      const text = shown(() => loadConfig({ [env]: value }));

      // Assert
      const problem = text
        .split('\n')
        .find((line) => line.trim().startsWith(`${env}:`))!
        .trim();
      expect(problem).toMatch(rule);
      for (const piece of piecesOf(secret)) expect(text).not.toContain(piece);
    },
  );

  test('when any setting is set to a value it refuses, then the error names the variable and never repeats the value', () => {
    // Arrange
    const value = 'Not-a-valid-value-7f3a';
    const refusing = Object.values(settings).filter((setting) => !setting.schema.safeParse(value).success);

    // Act and assert
    expect(refusing.length).toBeGreaterThan(30);
    for (const setting of refusing) {
      const text = shown(() => loadConfig({ [setting.env]: value }));
      expect(text).toContain(`${setting.env}: `);
      expect(text).not.toContain(value);
    }
  });

  test('when the operators page is read, then its configuration table is the one generated from the settings', () => {
    const docs = fs.readFileSync(path.resolve(__dirname, '../../docs/operators.md'), 'utf8');

    expect(docs).toContain(settingsTable());
    for (const setting of Object.values(settings)) expect(docs).toContain(`\`${setting.env}\``);
  });
});
