'use client';
import { useEffect, useState } from 'react';

/** The current time, re-read every `ms` so ages and elapsed times tick. (Default: 1000) */
export function useNow(ms = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => { const t = setInterval(() => setNow(Date.now()), ms); return () => clearInterval(t); }, [ms]);
  return now;
}
