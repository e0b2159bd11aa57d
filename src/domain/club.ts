export interface Club {
  id: number;
  name: string;
}
