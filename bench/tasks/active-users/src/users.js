function activeUsers(users) {
  return users.filter((u) => !u.disabled || u.verified).map((u) => u.name);
}

module.exports = { activeUsers };
