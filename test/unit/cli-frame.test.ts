import { BadUserInputError, NotFoundError } from '../../src/errors';
import { HELP, runCli, UsageError, type CliTool } from '../../src/cli/cli-frame';
import type { CliOutput } from '../../src/cli/cli-support';

/**
 * The frame every command-line tool runs in: parse → help → configuration → prepare → run →
 * release, and how each failure is told, with which exit code. These tools open no store
 * (`store: 'none'`); the frame with a store is tested in test/store/cli-frame.test.ts.
 */

function captured(): { output: CliOutput; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { output: { out: (line) => out.push(line), err: (line) => err.push(line) }, out, err };
}

const USAGE = 'Usage: npm run probe -- <word>';

/** A tool that records what the frame did with it; `run` does what `act` says. */
function probeTool(
  act: (word: string) => Promise<number | void> = async () => undefined,
  extra: Partial<CliTool<{ word: string }, string>> = {},
) {
  const calls: string[] = [];
  const tool: CliTool<{ word: string }, string> = {
    name: 'probe',
    usage: USAGE,
    store: 'none',
    parse: (argv) => {
      calls.push('parse');
      if (argv[0] === '--help') return HELP;
      if (argv.length !== 1) throw new UsageError('exactly one word is required');
      return { word: argv[0] };
    },
    prepare: async ({ word }) => {
      calls.push('prepare');
      return `prepared ${word}`;
    },
    release: (prepared) => {
      calls.push(`release ${prepared}`);
    },
    run: async ({ word }, { prepared }) => {
      calls.push(`run ${prepared}`);
      return act(word);
    },
    ...extra,
  };
  return { tool, calls };
}

describe('the CLI frame', () => {
  test('when the arguments are wrong, then the usage follows the mistake on stderr, exit code 2, and nothing else runs', async () => {
    // Arrange
    const { tool, calls } = probeTool();
    const { output, out, err } = captured();

    // Act
    const code = await runCli(tool, [], output, { env: {} });

    // Assert
    expect(code).toBe(2);
    expect(err).toEqual([`probe: exactly one word is required\n\n${USAGE}`]);
    expect(out).toEqual([]);
    expect(calls).toEqual(['parse']);
  });

  test('when help is asked, then the usage goes to stdout with exit code 0, even under a configuration that does not load', async () => {
    // Arrange
    const { tool, calls } = probeTool();
    const { output, out, err } = captured();

    // Act
    const code = await runCli(tool, ['--help'], output, { env: { PORT: 'eighty' } });

    // Assert
    expect(code).toBe(0);
    expect(out).toEqual([USAGE]);
    expect(err).toEqual([]);
    expect(calls).toEqual(['parse']);
  });

  test('when the configuration is invalid, then the tool fails naming the variable, with its failure exit code, before preparing anything', async () => {
    // Arrange
    const { tool, calls } = probeTool(undefined, { exitCodes: { failed: 3 } });
    const { output, err } = captured();

    // Act
    const code = await runCli(tool, ['word'], output, { env: { PORT: 'eighty' } });

    // Assert
    expect(code).toBe(3);
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(/^probe: invalid configuration:\n {2}PORT: /);
    expect(calls).toEqual(['parse']);
  });

  test('when the work succeeds, then prepare, run and release run in that order and the work’s exit code is the result', async () => {
    // Arrange
    const { tool, calls } = probeTool(async () => 7);
    const { output } = captured();

    // Act
    const code = await runCli(tool, ['word'], output, { env: {} });

    // Assert
    expect(code).toBe(7);
    expect(calls).toEqual(['parse', 'prepare', 'run prepared word', 'release prepared word']);
  });

  test('when the work fails, then the failure is one line prefixed by the tool’s name, with exit code 1, and what was prepared is released', async () => {
    // Arrange
    const { tool, calls } = probeTool(async () => {
      throw new NotFoundError('No such word.');
    });
    const { output, err } = captured();

    // Act
    const code = await runCli(tool, ['word'], output, { env: {} });

    // Assert
    expect(code).toBe(1);
    expect(err).toEqual(['probe: No such word.']);
    expect(calls.at(-1)).toBe('release prepared word');
  });

  test('when prepare fails, then the failure is told and there is nothing to release', async () => {
    // Arrange
    const { tool, calls } = probeTool(undefined, {
      prepare: async () => {
        throw new Error('ENOENT: no such file or directory, open words.txt');
      },
    });
    const { output, err } = captured();

    // Act
    const code = await runCli(tool, ['word'], output, { env: {} });

    // Assert
    expect(code).toBe(1);
    expect(err).toEqual(['probe: ENOENT: no such file or directory, open words.txt']);
    expect(calls).toEqual(['parse']);
  });

  test.each([
    ['with-usage', `probe: Invalid input: word must be short.\n\n${USAGE}`],
    ['alone', 'probe: Invalid input: word must be short.'],
  ] as const)(
    'when a service refuses the input and the tool tells it %s, then that is the message, with exit code 2',
    async (badInput, message) => {
      // Arrange
      const { tool } = probeTool(
        async () => {
          throw new BadUserInputError('Invalid input: word must be short.');
        },
        { badInput },
      );
      const { output, err } = captured();

      // Act
      const code = await runCli(tool, ['word'], output, { env: {} });

      // Assert
      expect(code).toBe(2);
      expect(err).toEqual([message]);
    },
  );

  test('when a tool does not say how a refused input is told, then it is a failure like any other', async () => {
    // Arrange
    const { tool } = probeTool(async () => {
      throw new BadUserInputError('Invalid input: word must be short.');
    });
    const { output, err } = captured();

    // Act
    const code = await runCli(tool, ['word'], output, { env: {} });

    // Assert
    expect(code).toBe(1);
    expect(err).toEqual(['probe: Invalid input: word must be short.']);
  });

  test('when a tool names its own prefix, then its messages carry it', async () => {
    // Arrange
    const { tool } = probeTool(undefined, { prefix: 'error: ' });
    const { output, err } = captured();

    // Act
    const code = await runCli(tool, ['one', 'two'], output, { env: {} });

    // Assert
    expect(code).toBe(2);
    expect(err[0]).toMatch(/^error: exactly one word is required\n\n/);
  });

  test('when a tool that opens no store asks for one, then that is its failure, told as such', async () => {
    // Arrange
    const { tool } = probeTool(undefined, {
      run: async (_command, context) => {
        void context.db;
      },
    });
    const { output, err } = captured();

    // Act
    const code = await runCli(tool, ['word'], output, { env: {} });

    // Assert
    expect(code).toBe(1);
    expect(err).toEqual(['probe: this tool opens no store (store: none)']);
  });

  test('when a tool reads the configuration while parsing, then it gets the one the frame runs with', async () => {
    // Arrange
    let seen: number | undefined;
    const { tool } = probeTool(undefined, {
      parse: (argv, config) => {
        seen = config().demoCandidates;
        return { word: argv[0] };
      },
      run: async (_command, context) => {
        expect(context.config.demoCandidates).toBe(seen);
      },
    });
    const { output } = captured();

    // Act
    const code = await runCli(tool, ['word'], output, { env: { DEMO_CANDIDATES: '12' } });

    // Assert
    expect(code).toBe(0);
    expect(seen).toBe(12);
  });
});
