function statusText(code) {
  switch (code) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 400:
      return "Bad Request";
    case 500:
      return "Internal Server Error";
    default:
      return "Unknown";
  }
}

module.exports = { statusText };
