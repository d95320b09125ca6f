function initials(name) {
  if (name.trim() === "") return "";
  return name
    .trim()
    .split(/\s+/)
    .map((part) => part[0].toUpperCase())
    .join("");
}

module.exports = { initials };
