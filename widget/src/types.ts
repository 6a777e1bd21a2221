/** The fields of the API's answers that the widget reads (the typed client leaves them open). */

export interface Locale {
  id: string;
  currency: string;
}

export interface ParamDefinition {
  lbl: string;
  def: number;
  req: 0 | 1;
  hide: 0 | 1 | null;
  MIN: number;
  MAX: number;
}

export interface ItemImage {
  src: string;
  title: string | false;
}

/** An item of `GET item`, unrated (the catalogue) or rated (a search's result). */
export interface Item {
  item_id: number;
  name: string;
  unit: 'N' | 'D' | 'H';
  pos: number;
  summary: string;
  image: Record<string, ItemImage>;
  param?: Record<string, ParamDefinition>;
  rate?: {
    status: string;
    available: number;
    slip?: string;
    error?: string;
    total?: string;
    summary: { title: string; date?: string; price: { total: string } };
  };
}

/** A line of the cart; package parts (`1.2`) name their parent and whether they are opted in. */
export interface SessionLine {
  line_id: string;
  item_id: number;
  name: string;
  qty?: number;
  parent?: string;
  optional?: 0 | 1;
  opt?: 'in' | 'out';
  rate?: { total: string };
  date?: { summary: string };
  available?: number;
}

export interface Session {
  id: string;
  expires: number;
  sub_total: string;
  tax_total?: string;
  total: string;
  item: Record<string, SessionLine>;
}

/** A field of `booking/form` (and of the booking policy). */
export interface FormField {
  value: string;
  define: {
    required: 0 | 1;
    mask?: string;
    max_length?: number;
    layout: {
      lbl: string;
      type: 'text' | 'textarea' | 'select' | 'checkbox' | 'radio' | 'p';
      options?: Record<string, string>;
    };
  };
}

export interface BookingForm {
  fields: Array<[string, FormField]>;
  policy: string;
}

export interface Confirmation {
  code: string;
  total: string;
  invoiceUrl: string;
}
