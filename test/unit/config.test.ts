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
      expect(problems).toContain('PORT=');
      expect(problems).toContain('MONGODB_URI=');
      expect(problems).toContain('LOG_LEVEL=');
    }
  });

  test('when the operators page is read, then its configuration table is the one generated from the settings', () => {
    const docs = fs.readFileSync(path.resolve(__dirname, '../../docs/operators.md'), 'utf8');

    expect(docs).toContain(settingsTable());
    for (const setting of Object.values(settings)) expect(docs).toContain(`\`${setting.env}\``);
  });
});
