// The product text of a payment (payments.description, the invoice's line item): one wording for a
// plan's first and recurring charges, with the treatment's catalogue name (not its id). The period a
// plan charge covers is printed on the invoice from payments.period_start, not in this text.

export function paymentDescription(treatmentName: string, dosage: string | null | undefined, plan: string, days: number | null | undefined): string {
  const product = `${treatmentName}${dosage ? ` ${dosage}` : ''}`;
  if (plan === 'subscription') return `${product}: treatment plan${days ? `, ${days}-day cycle` : ''}`;
  return `${product}: one-off consultation${days ? `, ${days}-day supply` : ''}`;
}
