import type { Lake, LakeOptions } from './index';

export function openLakeImpl(opts: LakeOptions): Lake {
  void opts;
  throw new Error('lake: not yet');
}
