<%-- bench/server.sh's page: RequestWork's strings, sorted and counted, rendered here. --%>
<%@ page contentType="text/html; charset=UTF-8" session="false"
         import="java.util.List,java.util.Map,java.util.concurrent.atomic.AtomicLong,hprofbench.RequestWork" %>
<%! private static final AtomicLong SEED = new AtomicLong(); %>
<%
  long seed = SEED.incrementAndGet();
  List<String> words = RequestWork.words(seed);
  int shown = 0;
%>
<html><body><h1>Request <%= seed %></h1><ul>
<% for (Map.Entry<String, Integer> e : RequestWork.counts(words).entrySet()) {
     if (shown++ == RequestWork.ROWS) break; %>
<li><%= e.getKey() %>: <%= e.getValue() %></li>
<% } %>
</ul><p><%= words.size() %> words, first <%= words.get(0) %>, last <%= words.get(words.size() - 1) %></p></body></html>
