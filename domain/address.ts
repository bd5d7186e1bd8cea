// Address equality: EVM addresses compare without regard to case (checksums are case).

/** True when both are given and name the same address. */
export const sameAddress = (a: string | null | undefined, b: string | null | undefined): boolean =>
  a != null && b != null && a.toLowerCase() === b.toLowerCase();
