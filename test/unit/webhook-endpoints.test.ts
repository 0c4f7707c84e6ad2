import {
  checkEndpoint,
  EndpointRefusedError,
  guardedLookup,
  isNonPublicAddress,
  type Resolver,
} from '../../src/webhooks/address-guard';
import { retryDelayMs } from '../../src/webhooks/backoff';
import { createSecretBox } from '../../src/webhooks/secret-box';

const STRICT = { allowHttp: false, allowPrivateAddresses: false };
const resolvesTo =
  (...addresses: string[]): Resolver =>
  () =>
    Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));

describe('webhook endpoint addresses', () => {
  test.each([
    '127.0.0.1',
    '127.1.2.3',
    '10.0.0.1',
    '172.16.5.4',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '0.0.0.0',
    '100.64.0.1',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '64:ff9b::a00:1',
    'not-an-ip',
  ])('when the address is %s, then it is not public', (address) => {
    expect(isNonPublicAddress(address)).toBe(true);
  });

  test.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])(
    'when the address is %s, then it is public',
    (address) => {
      expect(isNonPublicAddress(address)).toBe(false);
    },
  );

  test.each([
    ['https://127.0.0.1/hook', 'loopback literal'],
    ['https://[::1]/hook', 'IPv6 loopback literal'],
    ['https://169.254.169.254/latest/meta-data', 'link-local (metadata) literal'],
    ['https://10.1.2.3:8443/hook', 'private literal'],
  ])('when the endpoint is %s (%s), then registration refuses it by default', async (url) => {
    await expect(checkEndpoint(url, STRICT, resolvesTo('93.184.215.14'))).rejects.toBeInstanceOf(EndpointRefusedError);
  });

  test('when a host name resolves to a private address among public ones, then registration refuses it', async () => {
    await expect(
      checkEndpoint('https://hooks.example.org/x', STRICT, resolvesTo('93.184.215.14', '192.168.0.10')),
    ).rejects.toThrow(/non-public/);
  });

  test('when a host name resolves only to public addresses, then registration accepts it', async () => {
    const url = await checkEndpoint('https://hooks.example.org/x', STRICT, resolvesTo('93.184.215.14'));
    expect(url.hostname).toBe('hooks.example.org');
  });

  test('when private addresses are allowed, then a loopback endpoint is accepted', async () => {
    await expect(
      checkEndpoint('https://127.0.0.1:9/x', { allowHttp: false, allowPrivateAddresses: true }),
    ).resolves.toBeInstanceOf(URL);
  });

  test('when the endpoint is plain http, then it is refused unless the setting allows http', async () => {
    const publicHost = resolvesTo('93.184.215.14');
    await expect(checkEndpoint('http://hooks.example.org/x', STRICT, publicHost)).rejects.toThrow(/https/);
    await expect(
      checkEndpoint('http://hooks.example.org/x', { ...STRICT, allowHttp: true }, publicHost),
    ).resolves.toBeInstanceOf(URL);
  });

  test.each(['ftp://hooks.example.org/x', 'https://user:pw@hooks.example.org/x', 'not a url', 'file:///etc/passwd'])(
    'when the endpoint is %s, then it is refused',
    async (url) => {
      await expect(checkEndpoint(url, STRICT, resolvesTo('93.184.215.14'))).rejects.toBeInstanceOf(
        EndpointRefusedError,
      );
    },
  );

  test('when a host resolved public at registration resolves to loopback at connection (rebinding), then the connection is refused', async () => {
    const lookup = guardedLookup(STRICT, resolvesTo('127.0.0.1'));
    const error = await new Promise<Error | null>((resolve) => lookup('hooks.example.org', {}, (e) => resolve(e)));
    expect(error).toBeInstanceOf(EndpointRefusedError);
  });

  test('when the host resolves to a public address at connection, then the socket gets exactly that address', async () => {
    const lookup = guardedLookup(STRICT, resolvesTo('93.184.215.14'));
    const address = await new Promise<string>((resolve, reject) =>
      lookup('hooks.example.org', {}, (e, a) => (e ? reject(e) : resolve(a as string))),
    );
    expect(address).toBe('93.184.215.14');
  });
});

describe('webhook retry delays', () => {
  test('when attempts fail one after another, then the delay doubles within its jitter band up to the cap', () => {
    const low = () => 0;
    const high = () => 1;
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, 1000, 60_000, high))).toEqual([1000, 2000, 4000, 8000]);
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, 1000, 60_000, low))).toEqual([500, 1000, 2000, 4000]);
    expect(retryDelayMs(30, 1000, 60_000, high)).toBe(60_000);
    expect(retryDelayMs(1000, 1000, 60_000, low)).toBe(30_000);
  });
});

describe('webhook secret storage', () => {
  const key = Buffer.alloc(32, 7);

  test('when a key is set, then a secret is stored sealed and opens to itself, and another key cannot open it', () => {
    const secret = 'whsec_' + Buffer.alloc(32, 1).toString('base64');
    const sealed = createSecretBox(key).seal(secret);
    expect(sealed).toMatch(/^enc:v1:/);
    expect(sealed).not.toContain(secret.slice(6));
    expect(createSecretBox(key).open(sealed)).toBe(secret);
    expect(() => createSecretBox(Buffer.alloc(32, 8)).open(sealed)).toThrow();
    expect(() => createSecretBox(undefined).open(sealed)).toThrow(/WEBHOOK_SECRET_KEY/);
  });

  test('when no key is set, then a secret is stored as it is, and a key set later still opens it', () => {
    const stored = createSecretBox(undefined).seal('whsec_abcd');
    expect(stored).toBe('whsec_abcd');
    expect(createSecretBox(key).open(stored)).toBe('whsec_abcd');
  });
});
