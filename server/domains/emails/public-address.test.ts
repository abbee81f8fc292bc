import { describe, expect, it } from 'vitest';
import { OutboundRefused, ipv6Groups, isNonPublicAddress, resolveOutboundAddress } from './public-address.js';

describe('isNonPublicAddress: where an owner-chosen SMTP server may not be', () => {
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '0.0.0.0',
    '0.1.2.3',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '100.64.0.1',
    '100.127.255.255',
    '169.254.169.254',
    '169.254.0.1',
    '192.0.0.192',
    '224.0.0.1',
    '239.255.255.250',
    '255.255.255.255',
    '240.0.0.1',
    '198.18.0.1',
    '192.0.2.1',
    '203.0.113.7',
    '::',
    '::1',
    '[::1]',
    'fe80::1',
    'fe80::1%eth0',
    'fc00::1',
    'fd00:ec2::254',
    'fd12:3456::1',
    'ff02::1',
    'fec0::1',
    '2001:db8::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '0:0:0:0:0:ffff:a9fe:a9fe',
    '::127.0.0.1',
    '::ffff:0:10.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b::10.0.0.1',
    '64:ff9b:1::1',
    '2002:7f00:1::1',
    '2002:a9fe:a9fe::',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '100::1',
    'not-an-ip',
    '',
  ])('%s is not public', (address) => {
    expect(isNonPublicAddress(address)).toBe(true);
  });

  it.each([
    '93.184.215.14',
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '169.255.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('%s is public', (address) => {
    expect(isNonPublicAddress(address)).toBe(false);
  });

  it('reads IPv6 groups, with :: and an embedded IPv4 tail', () => {
    expect(ipv6Groups('::1')).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(ipv6Groups('::ffff:1.2.3.4')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x102, 0x304]);
    expect(ipv6Groups('fd00:ec2::254')).toEqual([0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254]);
  });
});

describe('resolveOutboundAddress: resolve once, check every address, pin', () => {
  const resolvesTo =
    (...addresses: string[]) =>
    async () =>
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (error: unknown) => (error instanceof OutboundRefused ? error.reason : error),
    );

  it('returns the resolved public address to connect to', async () => {
    expect(await resolveOutboundAddress('smtp.example.com', 587, { allowPrivate: false, lookup: resolvesTo('93.184.215.14') })).toBe('93.184.215.14');
    expect(await resolveOutboundAddress('93.184.215.14', 465, { allowPrivate: false })).toBe('93.184.215.14');
  });

  it('refuses a name when any of its addresses is not public (the resolver would choose)', async () => {
    expect(await refusal(resolveOutboundAddress('mixed.example.com', 587, { allowPrivate: false, lookup: resolvesTo('93.184.215.14', '10.0.0.5') }))).toBe(
      'address-not-allowed',
    );
    expect(await refusal(resolveOutboundAddress('localhost', 25, { allowPrivate: false }))).toBe('address-not-allowed');
    expect(await refusal(resolveOutboundAddress('[::1]', 25, { allowPrivate: false }))).toBe('address-not-allowed');
  });

  it('allows only SMTP ports, then any port and address when private is allowed', async () => {
    for (const port of [22, 80, 443, 6379, 8080, 0])
      expect(await refusal(resolveOutboundAddress('93.184.215.14', port, { allowPrivate: false }))).toBe('port-not-allowed');
    for (const port of [25, 465, 587, 2525]) expect(await resolveOutboundAddress('93.184.215.14', port, { allowPrivate: false })).toBe('93.184.215.14');
    expect(await resolveOutboundAddress('127.0.0.1', 6379, { allowPrivate: true })).toBe('127.0.0.1');
  });

  it('says when a name does not resolve', async () => {
    const fails = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    expect(await refusal(resolveOutboundAddress('nowhere.invalid', 587, { allowPrivate: false, lookup: fails }))).toBe('not-resolved');
  });
});
