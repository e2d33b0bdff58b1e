// Trust, pin and remove. Trust lets a server's read-only tools run without asking; a pin holds it to
// the exact version and definitions running now.
import { organizationTrusts } from '../../../shared/catalogue-text';
import { useEffect, useRef, useState } from 'react';
import type { PinView, SeenServer } from '../../../shared/api';
import { useApi, useActions, useApp } from '../store/context';
import type { UiServer } from '../store/normalize';
import { CommandLine } from '../ui/CommandLine';
import { Icon } from '../ui/Icon';
import { VisibleText } from '../ui/VisibleText';
import { dateTime } from '../lib/format';

export function ServerActions({ server, onRemoved }: { server: UiServer; onRemoved(): void }) {
  const api = useApi();
  const { run, refreshServers, refreshChanges } = useActions();
  const pinUnsupported = useApp((s) => s.unsupported.pinServer);
  const [confirmRemove, setConfirmRemove] = useState(false);
  // The question takes focus (on Cancel, the safe answer); Escape or Cancel gives it back to "Remove server…".
  const cancelRef = useRef<HTMLButtonElement>(null);
  const removeRef = useRef<HTMLButtonElement>(null);
  const asked = useRef(false);
  useEffect(() => {
    if (confirmRemove) cancelRef.current?.focus();
    else if (asked.current) removeRef.current?.focus();
    asked.current = confirmRemove;
  }, [confirmRemove]);
  const [pinned, setPinned] = useState<PinView | undefined>(undefined);
  const pin = server.pin ?? pinned;
  // What is on screen: trusting or pinning is refused if the command or the tools changed since.
  const seen: SeenServer | undefined = server.launch?.hash ? { launchHash: server.launch.hash, listingHash: server.listingHash } : undefined;

  const act = async <T,>(method: Parameters<typeof run>[0], call: () => Promise<T>) => {
    const res = await run(method, call);
    await Promise.all([refreshServers(), refreshChanges()]);
    return res;
  };

  return (
    <section className="block" aria-label="Trust and version">
      <div className="btn-row">
        {server.trusted || organizationTrusts(server.catalogue) ? (
          <button type="button" className="btn" onClick={() => void act('setTrust', () => api.setTrust(server.name, false))}>
            <Icon name="shieldOff" />
            Untrust
          </button>
        ) : (
          <button type="button" className="btn btn-primary" disabled={!seen} onClick={() => void act('setTrust', () => api.setTrust(server.name, true, seen))}>
            <Icon name="shield" />
            Trust
          </button>
        )}
        {pin ? (
          <button
            type="button"
            className="btn"
            onClick={() =>
              void act('unpinServer', async () => {
                await api.unpinServer(server.name);
                setPinned(undefined);
              })
            }
          >
            Unpin
          </button>
        ) : (
          <button
            type="button"
            className="btn"
            disabled={pinUnsupported || !seen}
            onClick={() =>
              void act('pinServer', async () => {
                const p = await api.pinServer(server.name, seen!);
                setPinned(p ?? undefined);
              })
            }
          >
            <Icon name="pin" />
            Pin version
          </button>
        )}
        {confirmRemove ? (
          <span
            className="confirm"
            role="group"
            aria-label="Remove server"
            onKeyDown={(e) => {
              if (e.key === 'Escape') {
                e.preventDefault();
                setConfirmRemove(false);
              }
            }}
          >
            Remove <VisibleText text={server.name} />, its trust and its rules?
            <button
              type="button"
              className="btn btn-deny"
              onClick={() =>
                void act('removeServer', async () => {
                  await api.removeServer(server.name);
                  onRemoved();
                })
              }
            >
              Remove
            </button>
            <button ref={cancelRef} type="button" className="btn" onClick={() => setConfirmRemove(false)}>
              Cancel
            </button>
          </span>
        ) : (
          <button ref={removeRef} type="button" className="btn btn-quiet" onClick={() => setConfirmRemove(true)}>
            Remove server…
          </button>
        )}
      </div>
      <p className="muted small">
        {server.trusted
          ? 'Trusted: tools that say they only read run without asking (and are logged). Everything else still asks.'
          : organizationTrusts(server.catalogue)
            ? 'Trusted by your organization: tools that say they only read run without asking (and are logged). Everything else still asks. Untrust it to have every call ask.'
            : 'Untrusted: every call asks, whatever the server claims about its tools.'}
      </p>
      {pin && (
        <div className="pin" role="status">
          <p>
            <Icon name="pin" /> Pinned{pin.version ? ` to version ${pin.version}` : ''}
            {pin.pinnedAt ? ` on ${dateTime(pin.pinnedAt)}` : ''}
            {pin.by === 'policy' ? ' by the team policy' : ''}. A different version, changed definitions or different package content quarantine the server.
          </p>
          {pin.package && (
            <p className="small">
              Package:{' '}
              <code>
                <VisibleText text={pin.package.spec} />
              </code>{' '}
              ({pin.package.kind})
            </p>
          )}
          {pin.package?.contentHash && (
            <p className="small">
              Content: <code className="break">{pin.package.contentHash}</code>
              {pin.package.installedAt && (
                <>
                  {' '}
                  (<VisibleText text={pin.package.installedAt} />)
                </>
              )}
              . Another copy of this version is quarantined before it starts.
            </p>
          )}
          {pin.package?.integrity?.map((i) => (
            <p key={i} className="small">
              Registry integrity:{' '}
              <code className="break">
                <VisibleText text={i} />
              </code>
            </p>
          ))}
          {pin.rewrite && (
            <div className="rewrite">
              <p className="small">
                <strong>Pinning changed the launch command</strong> so the same package runs every time:
              </p>
              <p className="small muted">Before</p>
              <CommandLine argv={pin.rewrite.from} label="Command before pinning" />
              <p className="small muted">After</p>
              <CommandLine argv={pin.rewrite.to} label="Command after pinning" />
            </div>
          )}
        </div>
      )}
    </section>
  );
}
