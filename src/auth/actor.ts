/** Who is acting. Services take it as an argument, so the caller decides where it comes from (today: configuration). */
export interface Actor {
  name: string;
}
