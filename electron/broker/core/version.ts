/** Countersign's version, as the status, `doctor` and crash logs report it. */
export const VERSION = '0.1.0';
