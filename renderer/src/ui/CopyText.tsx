// A command or address to copy. The clipboard may be unavailable (plain HTTP, permissions): the text
// stays selectable either way.
import { useState } from 'react';

export function CopyText({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    } catch {
      setCopied(false);
    }
  };
  return (
    <div className="copy">
      <code className="copy-text" aria-label={label}>
        {text}
      </code>
      <button type="button" className="btn btn-small" onClick={() => void copy()}>
        {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  );
}
