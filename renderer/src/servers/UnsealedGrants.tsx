// Trust, launch consent, rules and a team policy path that Countersign's files hold but the person never gave here (a hand
// edit, or an agent's): they have no effect. Each can be confirmed as shown, or discarded.
import { useCallback, useEffect, useState } from 'react';
import type { UnsealedGrant } from '../../../shared/api';
import { useActions, useApi, useApp } from '../store/context';
import { CommandLine } from '../ui/CommandLine';
import { VisibleText } from '../ui/VisibleText';

const TITLE: Record<UnsealedGrant['kind'], string> = { trust: 'Trust', launch: 'Launch consent', rule: '“Always allow” rule', policy: 'Team policy file' };

export function UnsealedGrants() {
  const api = useApi();
  const { run, refreshServers, refreshRules, refreshStatus } = useActions();
  const servers = useApp((s) => s.servers);
  const rules = useApp((s) => s.rules);
  const [grants, setGrants] = useState<UnsealedGrant[]>([]);
  const reload = useCallback(() => {
    // An older broker without the method simply shows nothing here.
    api.listUnsealed().then(setGrants, () => setGrants([]));
  }, [api]);
  const settings = useApp((s) => s.settings);
  useEffect(reload, [reload, servers, rules, settings]);
  if (grants.length === 0) return null;

  const act = async (g: UnsealedGrant, how: 'confirmUnsealed' | 'discardUnsealed') => {
    const ref = { kind: g.kind, server: g.server, hash: g.hash, ...(g.ruleId ? { ruleId: g.ruleId } : {}) };
    await run(how, () => (how === 'confirmUnsealed' ? api.confirmUnsealed(ref) : api.discardUnsealed(ref)));
    await Promise.all([refreshServers(), refreshRules(), refreshStatus()]);
    reload();
  };

  return (
    <section className="block block-attention" aria-labelledby="unsealed-title">
      <h2 id="unsealed-title">Not confirmed</h2>
      <p className="small">These were written into Countersign’s files outside Countersign. They have no effect until you confirm them.</p>
      <ul className="plain-list" aria-label="Grants not confirmed">
        {grants.map((g) => (
          <li key={`${g.kind}:${g.server}:${g.ruleId ?? ''}`}>
            <p>
              <strong>{TITLE[g.kind]}</strong> · <VisibleText text={g.what} />
            </p>
            {g.launch?.commandLine && <CommandLine argv={g.launch.commandLine} label="Command line, one argument per item" />}
            {g.launch?.url && (
              <p>
                URL:{' '}
                <code className="break">
                  <VisibleText text={g.launch.url} />
                </code>
              </p>
            )}
            {g.path && (
              <p>
                File:{' '}
                <code className="break">
                  <VisibleText text={g.path} />
                </code>
              </p>
            )}
            <button type="button" className="btn btn-small" onClick={() => void act(g, 'confirmUnsealed')}>
              Confirm
            </button>{' '}
            <button type="button" className="btn btn-small" onClick={() => void act(g, 'discardUnsealed')}>
              Discard
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
