// Where undo keeps its snapshots, inside the data dir: its own module, so the protected-path list can
// name it without loading the store.
export const SNAPSHOTS_DIR = 'snapshots';
