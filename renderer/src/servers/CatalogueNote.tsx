// How a server stands with the organization's catalogue of reviewed servers: trusted by the
// organization (and whether the person declined it), what differs from the entry, or a managed
// restriction that will not let it start, with the organization's reason.
import type { CatalogueView } from '../../../shared/api';
import { VisibleText } from '../ui/VisibleText';

export function CatalogueNote({ view }: { view?: CatalogueView }) {
  if (!view) return null;
  return (
    <>
      {view.state === 'trusted' && (
        <div className="banner" role="note" aria-label="Your organization's catalogue">
          <strong>Trusted by your organization</strong>: it runs exactly what catalogue entry “<VisibleText text={view.entry ?? ''} />” names.
          {view.declined
            ? ' You chose not to trust it, so every call asks as for an untrusted server. Trust it to lift that.'
            : ' Its tools that say they only read run without asking, and are logged. Untrust it to have every call ask.'}
        </div>
      )}
      {view.state === 'mismatch' && (
        <div className="banner banner-warning" role="note" aria-label="Your organization's catalogue">
          <strong>Not trusted by your organization</strong>: it differs from catalogue entry “<VisibleText text={view.entry ?? ''} />
          ”:
          <ul>
            {(view.differences ?? []).map((d, i) => (
              <li key={i}>
                <VisibleText text={d} />
              </li>
            ))}
          </ul>
          {!view.contentChecked && <p className="small">Its package content is checked when it next starts.</p>}
        </div>
      )}
      {view.refused && (
        <div className="banner banner-danger" role="note" aria-label="Refused by your organization">
          <strong>Your organization will not let it start</strong>: <VisibleText text={view.refused} />
        </div>
      )}
    </>
  );
}
