// The call's headline lines as one row of chips, for short windows: there the preview moves up
// (see detail.css), and these keep the same headline the card shows above it. The full list follows.
import { splitHeadline } from '../../../shared/card-order';
import type { Warning } from '../lib/warnings';
import { ChipRow } from './ChipRow';

export function DetailChips({ warnings }: { warnings: Warning[] }) {
  const { headline, moreNotable } = splitHeadline(warnings);
  return (
    <ChipRow headline={headline} moreNotable={moreNotable} label="Main lines (all of them below the preview)" className="detail-chips" moreWord="more below" />
  );
}
