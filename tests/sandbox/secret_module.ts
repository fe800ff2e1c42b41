// A module outside the fixture plugins' folder: a sandboxed plugin must not load it.
export const secret = "sk-this-must-never-leak";
