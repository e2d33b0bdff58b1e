// `countersign policy [--json]`: the effective policy. Each setting with its source (your organization's
// managed policy, the team policy file, you), and what it does to each configured server.
import { catalogueLines, organizationTrusts } from '../../shared/catalogue-text.js';
import type { BrokerStatus, ManagedStatus, ServerView, Settings } from '../../shared/api.js';
import { escapeControl as e, terminalJson } from '../../shared/escape.js';
import type { CoreApi } from './core-client.js';

const say = (text: string): void => void process.stdout.write(text);
export const MANAGED_MARK = 'managed by your organization';

const FROM: Record<NonNullable<NonNullable<BrokerStatus['policy']>['from']>, string> = {
  environment: 'set by COUNTERSIGN_POLICY',
  person: 'set by you in Countersign',
  unconfirmed: 'named by settings.json; unconfirmed, applied only because the sealed records cannot be read',
};

type Source = 'managed' | 'user-policy' | 'person';
interface Setting {
  name: string;
  value: string;
  source: Source;
  note?: string;
}
const SOURCE_TEXT: Record<Source, string> = { managed: MANAGED_MARK, 'user-policy': 'the team policy file', person: 'you' };

function settingsOf(managed: ManagedStatus | undefined, settings: Settings): Setting[] {
  const r = (key: string) => managed?.restrictions.filter((x) => x.key === key) ?? [];
  const out: Setting[] = [];
  const timeout = r('maxApprovalTimeout')[0];
  if (timeout?.capped) {
    out.push({
      name: 'approval timeout',
      value: `${timeout.capped.to} s`,
      source: 'managed',
      note: `you set ${timeout.capped.from} s; capped (${timeout.reason})`,
    });
  } else out.push({ name: 'approval timeout', value: `${settings.approvalTimeoutSeconds} s`, source: 'person', ...(timeout ? { note: timeout.text } : {}) });
  for (const x of managed?.restrictions ?? []) if (x.key !== 'maxApprovalTimeout') out.push({ name: x.key, value: x.text, source: 'managed', note: x.reason });
  return out;
}

function serverLines(s: ServerView): string[] {
  const out: string[] = [];
  if (s.blockedBy) out.push(`blocked: ${s.blockedBy}${/managed policy/.test(s.blockedBy) ? ` [${MANAGED_MARK}]` : ''}`);
  for (const m of s.managed ?? []) if (!m.startsWith('blocked')) out.push(`${m} [${MANAGED_MARK}]`);
  if (s.pin)
    out.push(
      `pinned${s.pin.version ? ` to ${s.pin.version}` : ''} by ${s.pin.managed ? MANAGED_MARK : s.pin.by === 'policy' ? 'the team policy file' : 'you'}`,
    );
  // The catalogue's word first: organization trust, or what differs from the nearest entry.
  if (s.catalogue) out.push(...catalogueLines(s.catalogue).map((l) => (l.startsWith('  ') ? l : `${l} [${MANAGED_MARK}]`)));
  if (!organizationTrusts(s.catalogue)) out.push(s.trusted ? 'trusted by you' : 'not trusted: hints add friction only');
  if (!s.launch.approved && !s.blockedBy) out.push('its command waits for your approval');
  return out;
}

export async function showEffectivePolicy(api: CoreApi, json: boolean, unconfirmedHint: string | undefined): Promise<number> {
  const [status, servers, settings] = await Promise.all([api.getStatus(), api.listServers(), api.getSettings()]);
  const policy = status.policy ?? { mayPreapprove: false };
  const managed = status.managed;
  const effective = settingsOf(managed, settings);
  if (json) {
    const perServer = servers.map((s) => ({
      name: s.name,
      status: s.status,
      blockedBy: s.blockedBy,
      managed: s.managed ?? [],
      pin: s.pin && { version: s.pin.version, by: s.pin.managed ? 'managed' : s.pin.by },
      trusted: s.trusted,
      catalogue: s.catalogue,
    }));
    say(terminalJson({ managed, policy, settings: effective, servers: perServer }, 2) + '\n');
    return 0;
  }
  if (!managed || managed.state === 'none') say(`No managed policy (looked for ${e(managed?.path ?? 'the OS path')}).\n`);
  else if (managed.state === 'loaded')
    say(
      `Managed policy: ${e(managed.path)}${managed.profile ? ` and the profile ${e(managed.profile)}` : ''} (${MANAGED_MARK}; it outranks the team policy and your settings)\n`,
    );
  else if (managed.state === 'broken')
    say(`Managed policy: ${e(managed.path)} cannot be read, so every server is blocked until it is fixed: ${e(managed.error ?? '')}\n`);
  else say(`Managed policy: ${e(managed.path)} is IGNORED: ${e(managed.why ?? '')}.\n  Fix: ${e(managed.fix ?? '')}\n`);
  if (managed?.overrideIgnored) say(`  The override ${e(managed.overrideIgnored)} is not followed: a policy is deployed at the OS path.\n`);
  if (managed?.block.length) say(`  Blocks: ${managed.block.map((b) => e(b)).join(', ')}\n`);
  if (managed?.alwaysAsk.length) say(`  Always asks: ${managed.alwaysAsk.map((a) => `${e(a.server)}/${e(a.tool)}`).join(', ')}\n`);
  if (policy.path) say(`Team policy file: ${e(policy.path)} (${policy.from ? FROM[policy.from] : 'in effect'})\n`);
  else say('No team policy file.\n');
  if (policy.error) say(`  It cannot be read, so every server is blocked until it is fixed: ${e(policy.error)}\n`);
  say(policy.mayPreapprove ? '  It may pre-approve the commands it lists.\n' : '  It only adds friction: it never lets a server run without your approval.\n');
  if (unconfirmedHint) say(unconfirmedHint);
  say('Settings:\n');
  for (const s of effective) say(`  ${s.name}: ${e(s.value)} (${SOURCE_TEXT[s.source]})${s.note ? ` — ${e(s.note)}` : ''}\n`);
  say(servers.length ? 'Servers:\n' : 'No servers configured.\n');
  for (const s of servers)
    say(
      `  ${e(s.name)}:\n${serverLines(s)
        .map((l) => `    ${e(l)}\n`)
        .join('')}`,
    );
  return 0;
}
