/**
 * functions/lib/url.ts: endpoint URLs as Python's urllib.parse.urlsplit reads
 * them (docs/kinds/modelendpoint.md#urls), with the stricter validity of its header.
 */
import { describe, expect, it } from 'vitest';
import { defaultPort, parseEndpointUrl } from '../../functions/lib/url.js';

describe('parseEndpointUrl (urllib semantics, stricter validity)', () => {
  it.each([
    ['http://34.55.100.10/v1', { scheme: 'http', host: '34.55.100.10', port: 80, addressType: 'IPv4' }],
    ['https://api.groq.com/openai/v1', { scheme: 'https', host: 'api.groq.com', port: 443, addressType: 'FQDN' }],
    ['http://user:pw@Host.example:0/v1', { scheme: 'http', host: 'host.example', port: 80, addressType: 'FQDN' }],
    ['https://[2001:DB8::1]:8443', { scheme: 'https', host: '2001:db8::1', port: 8443, addressType: 'IPv6' }],
    ['http://host:/v1', { scheme: 'http', host: 'host', port: 80, addressType: 'FQDN' }],
  ])('%s', (url, want) => {
    expect(parseEndpointUrl(url)).toStrictEqual(want);
  });
  it.each([
    ['not-a-url', 'no scheme, no host'],
    ['https://host:abc', 'port not a number'],
    ['http://host:65536/', 'port out of range'],
    ['http:///v1', 'empty host'],
    ['ftp://host/v1', 'scheme cannot be routed'],
    ['http://[2001:db8::1/v1', 'unbalanced bracket'],
    ['http://[10.0.0.1]/v1', 'IPv4 in brackets'],
    ['http://under_score.example/v1', 'not a DNS name: an FQDN EndpointSlice would reject it'],
  ])('%s is invalid (%s)', (url) => {
    expect(parseEndpointUrl(url)).toBeUndefined();
  });
});

describe('defaultPort', () => {
  it.each([
    ['https', 443],
    ['http', 80],
  ])('%s → %i', (scheme, port) => {
    expect(defaultPort(scheme)).toBe(port);
  });
});
