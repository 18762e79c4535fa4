/** One measure as a bar with its numbers; cards and criteria get a bar each, never merged. */
export function Progress({ label, done, total, testId }: { label: string; done: number; total: number; testId?: string }) {
  const pct = total === 0 ? 0 : Math.round((done / total) * 100);
  return (
    <div className="progress" data-testid={testId}>
      <div className="row spread small">
        <span>{label}</span>
        <span className="mono" data-done={done} data-total={total}>
          {done}/{total}
        </span>
      </div>
      <div className="bar" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={total} aria-valuenow={done} aria-valuetext={`${done} of ${total}`}>
        <div className="fill" style={{ width: `${pct}%` }} />
      </div>
    </div>
  );
}
