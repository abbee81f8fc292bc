/** Hand-written SVG charts (no chart library): a bar chart of daily counts. */
export function BarChart({
  data,
  label,
  height = 160,
  width = 600,
}: {
  data: Array<{ date: string; count: number }>;
  label: string;
  height?: number;
  width?: number;
}) {
  const padding = { top: 10, right: 8, bottom: 22, left: 32 };
  const max = Math.max(1, ...data.map((d) => d.count));
  // A round top with whole-number ticks: 0, half, top (half only when it is a whole number).
  const niceMax = max <= 4 ? max : Math.ceil(max / 4) * 4;
  const innerWidth = width - padding.left - padding.right;
  const innerHeight = height - padding.top - padding.bottom;
  const slot = innerWidth / Math.max(1, data.length);
  const total = data.reduce((sum, d) => sum + d.count, 0);
  const ticks = [...new Set([0, niceMax / 2, niceMax])].filter((value) => Number.isInteger(value));
  return (
    <figure style={{ margin: 0 }}>
      <svg className="chart" viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${label}: ${total} in the last ${data.length} days`}>
        {ticks.map((tick) => {
          const y = padding.top + innerHeight - (tick / niceMax) * innerHeight;
          return (
            <g key={tick}>
              <line className="gridline" x1={padding.left} x2={width - padding.right} y1={y} y2={y} />
              <text className="axis" x={padding.left - 6} y={y + 3} textAnchor="end">
                {tick}
              </text>
            </g>
          );
        })}
        {data.map((d, i) => {
          const barHeight = (d.count / niceMax) * innerHeight;
          const x = padding.left + i * slot + slot * 0.15;
          return (
            <rect
              key={d.date}
              className="bar"
              x={x}
              y={padding.top + innerHeight - barHeight}
              width={slot * 0.7}
              height={Math.max(barHeight, d.count > 0 ? 1 : 0)}
              rx={2}
            >
              <title>{`${d.date}: ${d.count}`}</title>
            </rect>
          );
        })}
        <DateLabels dates={data.map((d) => d.date)} left={padding.left} slot={slot} y={height - 6} />
      </svg>
      <figcaption className="visually-hidden">{data.map((d) => `${d.date}: ${d.count}`).join(', ')}</figcaption>
    </figure>
  );
}

/** The days under a chart's bars (`slot` wide each, from `left`): every seventh, counted back from the last. */
function DateLabels({ dates, left, slot, y }: { dates: string[]; left: number; slot: number; y: number }) {
  return dates.map((date, i) =>
    (dates.length - 1 - i) % 7 === 0 ? (
      <text key={`label-${date}`} className="axis" x={left + i * slot + slot / 2} y={y} textAnchor="middle">
        {date.slice(5)}
      </text>
    ) : null,
  );
}

/** Horizontal proportion bars (users by auth method). */
export function ProportionBars({ items }: { items: Array<{ label: string; value: number }> }) {
  const max = Math.max(1, ...items.map((item) => item.value));
  return (
    <div className="stack" style={{ gap: 8 }}>
      {items.map((item) => (
        <div key={item.label}>
          <div className="row" style={{ justifyContent: 'space-between' }}>
            <span>{item.label}</span>
            <strong>{item.value}</strong>
          </div>
          <svg className="chart" viewBox="0 0 100 6" preserveAspectRatio="none" style={{ height: 6 }} aria-hidden="true">
            <rect className="area" x={0} y={0} width={100} height={6} rx={3} />
            <rect className="bar" x={0} y={0} width={(item.value / max) * 100} height={6} rx={3} />
          </svg>
        </div>
      ))}
    </div>
  );
}

/**
 * Money per day for one currency: net bars (a day with more refunded than sold goes below the zero
 * line), gross and refunds in each bar's tooltip. Amounts are integer minor units; `format` turns
 * them into text (the currency's decimals), so no float ever reaches a label.
 */
export function MoneyBarChart({
  data,
  label,
  format,
  height = 180,
  width = 600,
}: {
  data: Array<{ date: string; gross: number; refunds: number; net: number }>;
  label: string;
  format: (minor: number) => string;
  height?: number;
  width?: number;
}) {
  const padding = { top: 10, right: 8, bottom: 22, left: 64 };
  const top = Math.max(0, ...data.map((d) => d.net));
  const bottom = Math.min(0, ...data.map((d) => d.net));
  const span = Math.max(1, top - bottom);
  const innerWidth = width - padding.left - padding.right;
  const innerHeight = height - padding.top - padding.bottom;
  const y = (value: number) => padding.top + ((top - value) / span) * innerHeight;
  const slot = innerWidth / Math.max(1, data.length);
  const total = data.reduce((sum, d) => sum + d.net, 0);
  const ticks = [...new Set([top, 0, bottom])];
  return (
    <figure style={{ margin: 0 }}>
      <svg className="chart" viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${label}: ${format(total)} net over ${data.length} days`}>
        {ticks.map((tick) => (
          <g key={tick}>
            <line className="gridline" x1={padding.left} x2={width - padding.right} y1={y(tick)} y2={y(tick)} />
            <text className="axis" x={padding.left - 6} y={y(tick) + 3} textAnchor="end">
              {format(tick)}
            </text>
          </g>
        ))}
        {data.map((d, i) => {
          const from = y(Math.max(0, d.net));
          const barHeight = Math.abs(y(d.net) - y(0));
          return (
            <rect
              key={d.date}
              className={d.net < 0 ? 'bar negative' : 'bar'}
              x={padding.left + i * slot + slot * 0.15}
              y={from}
              width={slot * 0.7}
              height={Math.max(barHeight, d.net !== 0 ? 1 : 0)}
              rx={2}
            >
              <title>{`${d.date}: ${format(d.net)} net (${format(d.gross)} sold, ${format(d.refunds)} refunded or disputed)`}</title>
            </rect>
          );
        })}
        <DateLabels dates={data.map((d) => d.date)} left={padding.left} slot={slot} y={height - 6} />
      </svg>
      <figcaption className="visually-hidden">{data.map((d) => `${d.date}: ${format(d.net)}`).join(', ')}</figcaption>
    </figure>
  );
}
