/*
 * A lead as the Lead API returns it (GET /leads/{leadId}, the items of GET /leads) and as its
 * webhook notification carries it. contract-notes: metadata, contactRequest, property.
 */
export interface PhoneNumber {
  type?: 'MOBILE' | 'LANDLINE';
  number: string;
  verified?: boolean;
}

export interface Lead {
  metadata: {
    leadId: string;
    category: 'CLASSIFIED' | 'AGENCY' | 'PROPERTY_SEARCH';
    /** When immogate received the lead (what minDate/maxDate bound). */
    ingestionDate: string;
    submittedDate: string;
    requestId: string;
    agencyId: string;
  };
  contactRequest: {
    firstName: string | null;
    lastName: string | null;
    /** firstName and lastName together, as a display name. */
    name: string | null;
    gender: string | null;
    email: string;
    language: string | null;
    phoneNumbers: PhoneNumber[];
    message: string | null;
  };
  property: {
    classifiedId: string | null;
  };
}

export interface LeadRow {
  id: string;
  seq: number;
  agency_id: string;
  request_id: string;
  category: Lead['metadata']['category'];
  classified_id: string | null;
  ingested_at: Date;
  submitted_at: Date;
  email: string;
  first_name: string | null;
  last_name: string | null;
  gender: string | null;
  language: string | null;
  phone_numbers: PhoneNumber[];
  message: string | null;
  erased_at: Date | null;
}

export function toLead(row: LeadRow): Lead {
  const name =
    row.erased_at !== null ? null : [row.first_name, row.last_name].filter((part) => part !== null && part !== '').join(' ') || null;
  return {
    metadata: {
      leadId: row.id,
      category: row.category,
      ingestionDate: row.ingested_at.toISOString(),
      submittedDate: row.submitted_at.toISOString(),
      requestId: row.request_id,
      agencyId: row.agency_id,
    },
    contactRequest: {
      firstName: row.first_name,
      lastName: row.last_name,
      name,
      gender: row.gender,
      email: row.email,
      language: row.language,
      phoneNumbers: row.phone_numbers,
      message: row.message,
    },
    property: { classifiedId: row.classified_id },
  };
}
