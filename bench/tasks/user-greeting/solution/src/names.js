export function fullName(user) {
  return `${user.first} ${user.last}`;
}
