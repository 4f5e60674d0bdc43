// How long a rotated API key may keep working beside the key that replaces it (the overlap), at most:
// a week is time to roll the new key out to every client; an old key working longer is a credential
// left behind. The console offers choices up to it (src/console/keys-page.ts), `svc-stt keys rotate
// --overlap-hours` any whole number of hours up to it.
export const LONGEST_ROTATION_OVERLAP_HOURS = 7 * 24;
