import type { CSSProperties } from 'react';

/** The host app's own look (the Latch components bring theirs). */
export const example: Record<string, CSSProperties> = {
  header: {
    display: 'flex',
    alignItems: 'center',
    justifyContent: 'space-between',
    padding: '12px 24px',
    borderBottom: '1px solid #e4e4e7',
    gap: 16,
    flexWrap: 'wrap',
  },
  brand: { fontWeight: 700, fontSize: 18, color: 'inherit', textDecoration: 'none' },
  nav: { display: 'flex', alignItems: 'center', gap: 16, flexWrap: 'wrap' },
  navLink: { color: 'inherit' },
  main: { maxWidth: 720, margin: '0 auto', padding: '32px 24px' },
};
