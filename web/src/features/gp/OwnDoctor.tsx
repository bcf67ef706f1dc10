// The profile's own-doctor section (docs/profile.md): the patient's GP `{name, practice, address,
// email}`, saved with PATCH /v1/users/profile/me/ (field errors keyed `gp.<field>`), or removed;
// and the letters sent to them (GpLetters).
import { useState, type FormEvent } from 'react';
import { api, type Schemas } from '../../api/client';
import { Alert, Field } from '../../components/ui';
import GpLetters from './GpLetters';
import { useGpText } from './strings';

type Profile = Schemas['Profile'];
type Gp = NonNullable<Profile['gp']>;
const EMPTY: Gp = { name: '', practice: '', address: '', email: '' };

export default function OwnDoctor({ profile, onSaved }: { profile: Profile; onSaved: (p: Profile) => void }) {
  const g = useGpText();
  const [gp, setGp] = useState<Gp>(profile.gp ?? EMPTY);
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [saved, setSaved] = useState(false);

  async function save(next: Gp | null) {
    setSaved(false);
    const { data, error } = await api.PATCH('/v1/users/profile/me/', { body: { gp: next } });
    if (error || !data) return setErrors((error ?? {}) as Record<string, string[]>);
    setErrors({});
    setGp(data.gp ?? EMPTY);
    setSaved(true);
    onSaved(data);
  }
  const field = (key: keyof Gp, type = 'text') => (
    <Field label={g(key)} type={type} value={gp[key]} error={errors[`gp.${key}`]?.join(' ')} onChange={(e) => setGp({ ...gp, [key]: e.target.value })} required={key === 'name' || key === 'email'} />
  );

  return (
    <section aria-labelledby="gp-h">
      <h2 id="gp-h">{g('title')}</h2>
      <p>{g('intro')}</p>
      {saved ? <Alert kind="success">{g('saved')}</Alert> : null}
      <form
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          void save(gp);
        }}
      >
        {field('name')}
        {field('practice')}
        {field('address')}
        {field('email', 'email')}
        <button type="submit">{g('save')}</button>{' '}
        {profile.gp ? (
          <button type="button" onClick={() => void save(null)}>
            {g('remove')}
          </button>
        ) : null}
      </form>
      <GpLetters />
    </section>
  );
}
