/** The link to the latest published reproduction page, opened in a new tab. */
import type { ReproductionLinkView } from "../view-models/thread";

export function ReproductionLink(props: { view: ReproductionLinkView }) {
  const { href, label, title } = props.view;
  return (
    <p className="reproduction-link">
      <a href={href} target="_blank" rel="noreferrer" title={title} data-testid="reproduction-link">
        {label}
      </a>
    </p>
  );
}
