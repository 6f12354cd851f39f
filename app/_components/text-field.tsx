/** One labelled text input of a panel form (the label text is also its accessible name). */
export function TextField({ label, name, value, onChange, placeholder }: {
  label: string; name: string; value: string; onChange: (v: string) => void; placeholder?: string;
}) {
  return (
    <label className="field">
      <span>{label}</span>
      <input name={name} value={value} onChange={(e) => onChange(e.target.value)} placeholder={placeholder} />
    </label>
  );
}
