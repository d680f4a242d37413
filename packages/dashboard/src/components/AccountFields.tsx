import { useId } from 'react';

/** README "People and teams": passwords are 10–128 characters, names at most 100, emails 254. */
export const MIN_PASSWORD = 10;
export const MAX_PASSWORD = 128;

/** A new password's field, held to the service's length rule; `describedBy` names the hint that says it. */
export function NewPasswordField({
  label,
  describedBy,
  invalid,
  value,
  onChange,
}: {
  label: string;
  describedBy: string;
  invalid?: boolean;
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <label>
      {label}
      <input
        type="password"
        autoComplete="new-password"
        required
        minLength={MIN_PASSWORD}
        maxLength={MAX_PASSWORD}
        aria-describedby={describedBy}
        aria-invalid={invalid}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
    </label>
  );
}

export interface Account {
  name: string;
  email: string;
  password: string;
}

/** A new account's name, email and password, as sign-up and the first-run setup ask for them. */
export function AccountFields({
  value,
  onChange,
  nameLabel = 'Name',
  passwordHint = `${MIN_PASSWORD} to ${MAX_PASSWORD} characters.`,
}: {
  value: Account;
  onChange: (value: Account) => void;
  nameLabel?: string;
  passwordHint?: string;
}) {
  const hintId = `${useId()}-password-hint`;
  return (
    <>
      <label>
        {nameLabel}
        <input
          autoComplete="name"
          required
          maxLength={100}
          value={value.name}
          onChange={(e) => onChange({ ...value, name: e.target.value })}
        />
      </label>
      <label>
        Email
        <input
          type="email"
          autoComplete="email"
          required
          maxLength={254}
          value={value.email}
          onChange={(e) => onChange({ ...value, email: e.target.value })}
        />
      </label>
      <NewPasswordField
        label="Password"
        describedBy={hintId}
        value={value.password}
        onChange={(password) => onChange({ ...value, password })}
      />
      <p id={hintId} className="fine">
        {passwordHint}
      </p>
    </>
  );
}
