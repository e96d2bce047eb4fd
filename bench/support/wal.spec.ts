import { attribute, type WalRecordGroup } from './wal';

const group = (g: Partial<WalRecordGroup>): WalRecordGroup => ({
  xid: '0',
  rm: 'Heap',
  rel: null,
  in_db: false,
  mine: false,
  bytes: '0',
  fpi: '0',
  ...g,
});

describe('WAL attribution', () => {
  it("counts this database's blocks and its transactions' commits, not other databases' records", () => {
    const span = attribute(1000, [
      group({ xid: '7', rel: 'run', in_db: true, mine: true, bytes: '300', fpi: '100' }),
      group({ xid: '7', rm: 'Transaction', mine: true, bytes: '40' }),
      group({ xid: '0', rm: 'Heap2', rel: 'run', in_db: true, bytes: '56' }),
      group({ xid: '9', rel: null, bytes: '500' }),
      group({ xid: '0', rm: 'Standby', bytes: '104' }),
    ]);
    expect(span.clusterBytes).toBe(1000);
    expect(span.databaseBytes).toBe(396);
    expect(span.byXid.get(7)).toBe(340);
    expect(span.byXid.has(9)).toBe(false);
    expect(span.withoutXidBytes).toBe(56);
    expect(span.fpiBytes).toBe(100);
    expect(span.byRelation).toEqual({ run: 356, commit: 40 });
  });
});
