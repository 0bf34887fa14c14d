/**
 * Stage settings in a committed file (`infra/stages/<stage>.json`): every stage has a valid one, a file that leaves
 * the alarm email or the domains unsaid (or says something out of bounds) fails the synth naming the field, deploying
 * twice from the same file yields the same templates, and a file's domains and settings are deployed without any `-c`
 * flag, so a plain `cdk deploy --all` keeps what the last one set up.
 */
import { describe, expect, it } from 'vitest';
import { parseStageFile, readStageFile } from '#infra/stage-file.ts';
import { OPERATOR_SETTINGS } from '#shared/catalog/settings.ts';
import { STAGES } from '#shared/catalog/stage.ts';
import { synth } from './synth.ts';

const CERT = 'arn:aws:acm:us-east-1:111111111111:certificate/abc';
const file = (extra: Record<string, unknown> = {}) => ({
  alarmEmail: null,
  customDomains: null,
  settings: {},
  ...extra,
});

describe('stage files', () => {
  it('exist for every stage, and each is valid', () => {
    for (const stage of STAGES) expect(readStageFile(stage)).toMatchObject({ settings: expect.any(Object) });
  });

  it.each([
    ['the domains left unsaid', { customDomains: undefined }, /customDomains is required \(null for none\)/],
    ['the alarm email left unsaid', { alarmEmail: undefined }, /alarmEmail is required \(null for none\)/],
    ['a setting out of bounds', { settings: { sesSendRatePerSecond: 0 } }, /settings\.sesSendRatePerSecond must be/],
    ['an unknown setting', { settings: { colour: 1 } }, /settings/],
    ['domains without any host', { customDomains: { certificateArn: CERT } }, /at least one of main, front, sending/],
    ['a domain that is not one', { customDomains: { certificateArn: CERT, main: 'https://x' } }, /customDomains\.main/],
    ['an email that is not one', { alarmEmail: 'ops' }, /alarmEmail must be an email address/],
  ])('refuses %s, naming the field', (_, extra, message) => {
    const content = file(extra);
    for (const key of Object.keys(extra))
      if ((extra as Record<string, unknown>)[key] === undefined) delete (content as Record<string, unknown>)[key];
    expect(() => parseStageFile(content, 'infra/stages/prod.json')).toThrow(message);
  });

  it('deploys its domains, alarm email and settings without a -c flag, the same way twice', () => {
    const content = file({
      alarmEmail: 'ops@shop.example',
      customDomains: { certificateArn: CERT, main: 'api.shop.example' },
      settings: { sesSendRatePerSecond: 50 },
    });
    const first = synth('prod', {}, content);
    const second = synth('prod', {}, content);
    for (const [i, { template }] of first.all.entries()) {
      expect(JSON.stringify(template.toJSON())).toBe(JSON.stringify(second.all[i]?.template.toJSON()));
    }
    first.edge.hasResourceProperties('AWS::ApiGatewayV2::DomainName', { DomainName: 'api.shop.example' });
    first.ops.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@shop.example' });
    const variables = Object.values(first.areas).flatMap((template) =>
      Object.values(template.findResources('AWS::Lambda::Function')).map(
        (fn) => (fn.Properties?.Environment?.Variables ?? {}) as Record<string, unknown>,
      ),
    );
    expect(variables.some((v) => v[OPERATOR_SETTINGS.sesSendRatePerSecond.env] === '50')).toBe(true);
    // A -c flag still overrides the file for a one-off try.
    const tried = synth('prod', { mainDomain: 'try.shop.example' }, content);
    tried.edge.hasResourceProperties('AWS::ApiGatewayV2::DomainName', { DomainName: 'try.shop.example' });
    // Three whole synths: seconds each on a quiet machine, more beside a loaded one.
  }, 180_000);
});
