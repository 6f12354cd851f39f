/** The panel's sections, in navigation order. A new engine's page goes here once it exists. */
export const NAV_ITEMS = [
  { href: '/', label: 'Overview' },
  { href: '/connections', label: 'Connections' },
  { href: '/tables', label: 'Tables' },
  { href: '/pipelines', label: 'Pipelines' },
  { href: '/flows', label: 'Flows' },
  { href: '/cdc', label: 'CDC' },
  { href: '/runs', label: 'Runs' },
  { href: '/lake', label: 'Lake' },
  { href: '/data-quality', label: 'Data quality' },
  { href: '/slices', label: 'Slices' },
  { href: '/models', label: 'Models' },
  { href: '/assets', label: 'Assets' },
  { href: '/settings', label: 'Settings' },
] as const;
