export function fullName(user) {
  return `${user.last} ${user.first}`;
}
