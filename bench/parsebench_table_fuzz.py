"""Random table cases for the table dimension's differential check against ParseBench's
evaluator (bench/parsebench_table_fuzz.sh): expected Markdown with one or two HTML tables
(spans, header rows, <thead>, <td>/<th> title rows, side-by-side pairs), an output made from
each by random cell swaps, <th> turned <td>, a cut last row, lower-casing, a title before the
table or no table; per case a `present` rule carrying random table settings
(`allow_splitting_ambiguous_merged_tables`, `trm_unsupported`, `max_top_title_rows`), a
`table`, a `table_header_chain` (half of them built from the output's own grid) and a
`tables_values` rule (cell threshold 0: the evaluator's score is a string below it).

Run with ParseBench's `src/` on PYTHONPATH (its grid reader builds the header chains).
Usage: parsebench_table_fuzz.py OUT_DIR SEED CASES PDF
writes OUT_DIR/cases (table.jsonl, expected_markdown.json, pdfs/table/*.pdf: copies of PDF
made distinct) and OUT_DIR/outputs/p/table/*.md.
"""

import json, random, os, sys, shutil
from parse_bench.evaluation.metrics.parse.table_parsing import find_all_html_tables
from parse_bench.evaluation.metrics.parse.rules_table import TableHeaderChainRule
random.seed(int(sys.argv[2]) if len(sys.argv)>2 else 1)
out=sys.argv[1]
shutil.rmtree(out, ignore_errors=True)
os.makedirs(out+'/cases/pdfs/table'); os.makedirs(out+'/outputs/p/table')
words=['Apple','Kiwi','Pear','Total','North','South','2023','2024','1,500','$ 2,000','12.5 %','—','n/a','Café','x²','H<sub>2</sub>O','**Bold**','Name','Age','Sales','Region','(in millions)','','','A . . . . 5']
def cell(t,txt,span=None):
    a=''
    if span: a=''.join(f' {k}="{v}"' for k,v in span.items())
    return f'<{t}{a}>{txt}</{t}>'
def table(nr,nc,hdr=1,title=None,thtitle=None,spans=True,thead=False):
    rows=[]
    if title: rows.append('<tr>'+cell('td',title,{'colspan':nc})+'</tr>')
    if thtitle: rows.append('<tr>'+cell('th',thtitle,{'colspan':nc})+'</tr>')
    grid=[[random.choice(words) for _ in range(nc)] for _ in range(nr)]
    for r in range(nr):
        t='th' if r<hdr else 'td'
        cs=[]
        c=0
        while c<nc:
            if spans and random.random()<0.12 and c+1<nc:
                cs.append(cell(t,grid[r][c],{'colspan':2})); c+=2
            else:
                cs.append(cell(t,grid[r][c])); c+=1
        rows.append('<tr>'+''.join(cs)+'</tr>')
    if thead and hdr:
        return '<table><thead>'+''.join(rows[:hdr+(1 if title else 0)+(1 if thtitle else 0)])+'</thead><tbody>'+''.join(rows[hdr+(1 if title else 0)+(1 if thtitle else 0):])+'</tbody></table>', grid
    return '<table>'+''.join(rows)+'</table>', grid
def mutate(html):
    h=html
    for _ in range(random.randint(0,4)):
        w=random.choice(words); v=random.choice(words)
        if w and w in h: h=h.replace('>'+w+'<','>'+v+'<',1)
    if random.random()<0.2: h=h.replace('<th>','<td>').replace('<th ','<td ').replace('</th>','</td>')
    if random.random()<0.15:
        i=h.rfind('<tr>'); 
        if i>0: h=h[:i]+'</table>'
    if random.random()<0.1: h=h.lower()
    return h
em={}; lines=[]
for i in range(int(sys.argv[3]) if len(sys.argv)>3 else 60):
    name=f'z{i}'
    nt=random.choice([1,1,1,2])
    exp=[];pred=[]
    for k in range(nt):
        nr=random.randint(2,5); nc=random.randint(1,4)
        title=random.choice([None,None,'Staff ages','Prices 2024'])
        thtitle=random.choice([None,None,'Sales by region'])
        html,_=table(nr,nc,hdr=random.choice([0,1,1,2]),title=title,thtitle=thtitle,thead=random.random()<0.3)
        pre=(title+'\n\n') if title and random.random()<0.5 else ''
        exp.append(html)
        r=random.random()
        if r<0.1: pred.append('no table here')
        elif r<0.2 and title: pred.append(title+'\n\n'+mutate(html.replace(f'<tr><td colspan="{nc}">{title}</td></tr>','')))
        else: pred.append(pre+mutate(html))
    if nt==2 and random.random()<0.5:
        # merged side by side
        a,_=table(3,2,hdr=1,spans=False); 
        b=a.replace('<table>','').replace('</table>','')
        exp=[a, a.replace('Apple','Kiwi')]
        ra=a.replace('<table>','').replace('</table>','').split('</tr>')[:-1]
        rb=exp[1].replace('<table>','').replace('</table>','').split('</tr>')[:-1]
        merged='<table>'+''.join(x.replace('<tr>','<tr>',1)+y.replace('<tr>','')+'</tr>' for x,y in zip(ra,rb))+'</table>'
        pred=[merged]
    md_e='Intro text.\n\n'+'\n\n'.join(exp)+'\n'
    md_p='\n\n'.join(pred)+'\n'
    em[f'pdfs/table/{name}.pdf']=md_e
    open(f'{out}/outputs/p/table/{name}.md','w').write(md_p)
    rule={"text":"Intro"}
    if random.random()<0.3: rule['allow_splitting_ambiguous_merged_tables']=True
    if random.random()<0.2: rule['trm_unsupported']=True
    if random.random()<0.3: rule['max_top_title_rows']=random.choice([0,1,2])
    lines.append(json.dumps({"pdf":f"pdfs/table/{name}.pdf","page":1,"category":"table","id":f"{name}-p","type":"present","rule":rule}))
    W=[w for w in words if w]
    pick=lambda: random.choice(W)
    r1={"cell":pick()}
    for k in ["up","down","left","right","top_heading","left_heading"]:
        if random.random()<0.3: r1[k]=pick()
    if random.random()<0.2: r1["ignore_markdown_tables"]=True
    if random.random()<0.2: r1["max_diffs"]=random.choice([1,2])
    lines.append(json.dumps({"pdf":f"pdfs/table/{name}.pdf","page":1,"category":"table","id":f"{name}-t","type":"table","rule":r1}))
    r2={"data_cell":pick()}
    if random.random()<0.7: r2["column_headers"]=[pick() for _ in range(random.randint(1,2))]
    if random.random()<0.5 or "column_headers" not in r2: r2["row_headers"]=[pick() for _ in range(random.randint(1,2))]
    grids=find_all_html_tables(md_p)
    cands=[(g,c) for g in grids for row in g.cells for c in row if c is not None and c.text]
    if cands and random.random()<0.7:
        g,c=random.choice(cands)
        rule=TableHeaderChainRule({"type":"table_header_chain","data_cell":c.text,"column_headers":["x"]})
        ch=rule._get_column_headers(g,c.original_row,c.original_col)
        rh=rule._get_row_headers(g,c.original_row,c.original_col)
        r2={"data_cell":c.text}
        if ch: r2["column_headers"]=ch if random.random()<0.7 else ch[:-1]+[pick()]
        if rh or not ch: r2["row_headers"]=rh if random.random()<0.7 else rh+[pick()]
    lines.append(json.dumps({"pdf":f"pdfs/table/{name}.pdf","page":1,"category":"table","id":f"{name}-h","type":"table_header_chain","rule":r2}))
    rows=[{"cells":[{"text":pick()} for _ in range(random.randint(1,3))]} for _ in range(random.randint(1,4))]
    lines.append(json.dumps({"pdf":f"pdfs/table/{name}.pdf","page":1,"category":"table","id":f"{name}-v","type":"tables_values","rule":{"table_variations":[{"rows":rows}],"table_match_threshold":random.choice([0.0,0.2,0.8]),"table_values_match_threshold":0.0}}))
    src=sys.argv[4]
    b=open(src,'rb').read()+f'%{name}\n'.encode()
    open(f'{out}/cases/pdfs/table/{name}.pdf','wb').write(b)
open(f'{out}/cases/table.jsonl','w').write('\n'.join(lines)+'\n')
open(f'{out}/cases/expected_markdown.json','w').write(json.dumps(em))
